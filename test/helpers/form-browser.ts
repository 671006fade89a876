/**
 * A browser of sorts for server-rendered pages: keeps cookies (by name, as the server sets them),
 * follows nothing, and posts forms with the anti-forgery token of the last page it read.
 */
export function formBrowser(baseUrl: string) {
  const jar = new Map<string, string>();
  const remember = (res: Response) => {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, value] = pair!.split('=');
      if (value) jar.set(name!, value);
      else jar.delete(name!);
    }
  };
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  let lastPage = '';
  return {
    jar,
    async get(path: string) {
      const res = await fetch(`${baseUrl}${path}`, { headers: { cookie: cookie() }, redirect: 'manual' });
      remember(res);
      const body = Buffer.from(await res.arrayBuffer());
      lastPage = body.toString('utf8');
      return { status: res.status, html: lastPage, body, location: res.headers.get('location'), headers: res.headers };
    },
    async post(path: string, fields: Record<string, string>, withToken = true) {
      const token = /name="csrf" value="([^"]*)"/.exec(lastPage)?.[1] ?? '';
      const res = await fetch(`${baseUrl}${path}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie: cookie(), 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(withToken ? { csrf: token, ...fields } : fields),
      });
      remember(res);
      const html = await res.text();
      if (res.status === 200) lastPage = html;
      return { status: res.status, html, location: res.headers.get('location'), setCookie: res.headers.getSetCookie() };
    },
  };
}

export type FormBrowser = ReturnType<typeof formBrowser>;
