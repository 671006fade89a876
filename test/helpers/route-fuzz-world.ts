import type { Environment } from '../../src/domain/model.ts';
import { send } from './route-fuzz.ts';
import type { World } from './route-fuzz-requests.ts';
import { TEST_CARD, type TestApp, type TestVendor } from './test-app.ts';

/**
 * The existing values the route fuzz test mixes into its requests, in both environments: products
 * of every type, a purchase of each, a customized product, licence and invoice ids, the customer's
 * management page, the admin tool's session, and a vendor signed in to the panel. Hosted pages'
 * form tokens are read from the pages themselves, as a browser would.
 */
const PANEL_LOGIN = { email: 'fuzz-owner@vendor.test', password: 'correct horse battery staple' };
const OPERATOR_EMAIL = 'fuzz-operator@opentill.test';

const formField = (html: string, name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(html)?.[1];
const cookieOf = (setCookie: string | string[] | undefined, name: string) =>
  [setCookie ?? []]
    .flat()
    .map((c) => new RegExp(`^${name}=([^;]*)`).exec(c)?.[1])
    .find((value) => value !== undefined);

/** Every string in a JSON value that looks like an opentill id or a licence key. */
function idsIn(value: unknown, found = new Set<string>()): Set<string> {
  if (typeof value === 'string' && /^(TC-[A-Z]{2}_|PC_)[\w-]+$|^[0-9A-Z]{5}(-[0-9A-Z]{5}){4}$/.test(value))
    found.add(value);
  else if (Array.isArray(value)) for (const item of value) idsIn(item, found);
  else if (value !== null && typeof value === 'object') for (const item of Object.values(value)) idsIn(item, found);
  return found;
}

export async function seedWorld(t: TestApp, v: TestVendor): Promise<World> {
  const world: World = new Map();
  for (const environment of ['production', 'sandbox'] as const) {
    const set = (name: string, value: string | undefined) =>
      value !== undefined && world.set(`${environment}.${name}`, value);
    const prices = [{ currency: 'USD', value: 20 }];
    const onetime = await v.product({ type: 'ONETIME', prices, issuesLicences: true }, environment);
    const plan = await v.product({ type: 'SUBSCRIPTION', chargeFrequency: 'MONTHLY', prices } as never, environment);
    const vaulted = await v.product({ type: 'VAULTED', prices: [{ currency: 'USD', value: 0 }] }, environment);
    const email = `customer-${environment}@example.com`;
    const ids = new Set<string>();
    for (const [name, product] of Object.entries({ onetime, plan, vaulted })) {
      const bought = await t.services.purchases.purchase(v.scope(environment), {
        productId: product.id,
        email,
        country: 'US',
        card: TEST_CARD,
      });
      if (bought.status !== 'PAID') throw new Error(`seed purchase declined: ${JSON.stringify(bought)}`);
      set(`product.${name}`, product.id);
      set(`tx.${name}`, bought.transaction.id);
      if (bought.licence) set('licence', bought.licence);
      for (const id of idsIn((await v.api(`/v1/transaction/${bought.transaction.id}`, { environment })).json))
        ids.add(id);
    }
    const customized = await v.api(`/v1/customize-product/${onetime.id}`, {
      environment,
      body: { prices, userMail: email },
    });
    set('customized', customized.json?.customizedProductId);
    for (const id of idsIn(customized.json)) ids.add(id);
    // The rest: ledger entries, invoice hash ids.
    for (const id of [...world.values()]) ids.delete(id);
    [...ids].forEach((id, i) => set(`id${i}`, id));
    set('email', email);
    await openHostedPages(t, v, world, environment);
  }
  await signInToPanel(t, world, true);
  await t.services.operators.create(OPERATOR_EMAIL);
  await signInToConsole(t, world);
  return world;
}

/** The management page and an admin session of `environment`, with their form tokens; again when a session has ended. */
export async function openHostedPages(t: TestApp, v: TestVendor, world: World, environment: Environment) {
  const prefix = environment === 'sandbox' ? '/sandbox' : '';
  const manage = new URL(
    (await v.api(`/v1/generate-url-to-manage-transactions/customer-${environment}@example.com`, { environment })).json
      .url,
  ).pathname;
  world.set(`${environment}.manage`, manage.split('/').pop()!);
  world.set(
    `${environment}.manageForm`,
    formField((await send(t.url, { method: 'GET', path: manage, headers: {} })).text, 'formToken') ?? '',
  );
  const link = new URL((await v.api('/v1/generate-url-to-admin', { environment })).json.url).pathname;
  world.set(`${environment}.adminLink`, link.split('/').pop()!);
  const opened = await send(t.url, { method: 'GET', path: link, headers: {} });
  const session = /s\/([^/?]+)$/.exec(String(opened.headers.location ?? ''))?.[1];
  if (opened.status !== 303 || !session)
    throw new Error(`the admin link did not open a session: ${opened.status} ${opened.text.slice(0, 200)}`);
  world.set(`${environment}.adminSession`, session);
  const page = await send(t.url, {
    method: 'GET',
    path: `${prefix}/admin/s/${session}/tx/${world.get(`${environment}.tx.onetime`)}`,
    headers: {},
  });
  world.set(`${environment}.adminForm`, formField(page.text, 'formToken') ?? '');
  world.set(`${environment}.adminVersion`, formField(page.text, 'version') ?? '0');
}

/** A vendor signed in to the panel: its cookies, the session's anti-forgery token and the sign-in form's. */
export async function signInToPanel(t: TestApp, world: World, signUp = false) {
  const mode = signUp ? 'signup' : 'signin';
  const form = await send(t.url, { method: 'GET', path: `/panel/${mode}`, headers: {} });
  const loginCsrf = cookieOf(form.headers['set-cookie'], 'ot_panel_csrf')!;
  const fields = new URLSearchParams({
    csrf: formField(form.text, 'csrf') ?? '',
    company: 'Fuzz Software',
    ...PANEL_LOGIN,
  });
  const posted = await send(t.url, {
    method: 'POST',
    path: `/panel/${mode}`,
    headers: { cookie: `ot_panel_csrf=${loginCsrf}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: Buffer.from(fields.toString()),
  });
  const session = cookieOf(posted.headers['set-cookie'], 'ot_panel');
  if (posted.status !== 303 || !session)
    throw new Error(`panel ${mode} failed: ${posted.status} ${posted.text.slice(0, 200)}`);
  // An open sign-up starts in the sandbox; the operator lets this vendor reach production too, so both are fuzzed.
  if (signUp)
    await t.services.catalog.enableProduction(
      (await t.services.store.panel.findUserByEmail(PANEL_LOGIN.email))!.vendorId,
    );
  const cookies = `ot_panel=${session}; ot_panel_csrf=${loginCsrf}`;
  const panel = await send(t.url, { method: 'GET', path: '/panel?env=sandbox', headers: { cookie: cookies } });
  world.set('panelCookies', cookies);
  world.set('panelCsrf', formField(panel.text, 'csrf') ?? '');
  world.set('loginCsrf', loginCsrf);
}

/**
 * The operator signed in to its console (a new password each time, so none is kept in the world for a
 * request to use): its cookie is sent beside the panel's, its form token is one more csrf.
 */
async function signInToConsole(t: TestApp, world: World) {
  const { password } = await t.services.operators.resetPassword(OPERATOR_EMAIL);
  const form = await send(t.url, { method: 'GET', path: '/operator/signin', headers: {} });
  const csrf = cookieOf(form.headers['set-cookie'], 'ot_operator_csrf')!;
  const posted = await send(t.url, {
    method: 'POST',
    path: '/operator/signin',
    headers: { cookie: `ot_operator_csrf=${csrf}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: Buffer.from(new URLSearchParams({ csrf, email: OPERATOR_EMAIL, password }).toString()),
  });
  const session = cookieOf(posted.headers['set-cookie'], 'ot_operator');
  if (posted.status !== 303 || !session) throw new Error(`console sign-in failed: ${posted.status}`);
  const page = await send(t.url, { method: 'GET', path: '/operator', headers: { cookie: `ot_operator=${session}` } });
  world.set('operatorCookie', `ot_operator=${session}`);
  world.set('operatorCsrf', formField(page.text, 'csrf') ?? '');
}

/** Opens again what a fuzzed request may have ended (a panel or console sign-out, revoked admin sessions). */
export async function keepSessionsOpen(t: TestApp, v: TestVendor, world: World) {
  const panel = await send(t.url, {
    method: 'GET',
    path: '/panel',
    headers: { cookie: world.get('panelCookies') ?? '' },
  });
  if (panel.status !== 200) await signInToPanel(t, world);
  const consolePage = await send(t.url, {
    method: 'GET',
    path: '/operator',
    headers: { cookie: world.get('operatorCookie') ?? '' },
  });
  if (consolePage.status !== 200) await signInToConsole(t, world);
  for (const environment of ['production', 'sandbox'] as const) {
    const prefix = environment === 'sandbox' ? '/sandbox' : '';
    const admin = await send(t.url, {
      method: 'GET',
      path: `${prefix}/admin/s/${world.get(`${environment}.adminSession`)}`,
      headers: {},
    });
    if (admin.status !== 200) await openHostedPages(t, v, world, environment);
  }
}
