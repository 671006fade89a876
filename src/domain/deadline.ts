/**
 * What `work` gives within `ms`, or `late` once `ms` passed without it. The work itself goes on: the
 * caller decides what a late answer means (an UNKNOWN charge, an e-mail to try again) and how to stop it.
 */
export async function withinMs<T, L>(work: Promise<T>, ms: number, late: L): Promise<T | L> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<L>((resolve) => {
    timer = setTimeout(() => resolve(late), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
