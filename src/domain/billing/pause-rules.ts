import { invalidInput, invalidState } from '../errors.ts';
import type { SubscriptionPause, Transaction } from '../model.ts';
import type { PauseWrite } from '../ports.ts';

/**
 * The rules of a pause (docs/decisions.md §41), as values the service writes: a pause takes effect at
 * the end of the period already paid (`nextCharge`), so nothing is refunded or credited; while it is
 * in effect nothing is due; a resume, by hand or at the resume date, starts a new period at once that
 * is charged at once (the anchor moves there, the period count goes on); a resume asked before the
 * pause took effect calls the pause off and puts the schedule back as it was.
 */

/** Where a subscription stands with its latest pause at `now`. */
export type PauseState = 'none' | 'scheduled' | 'paused';

export function pauseStateOf(t: Pick<Transaction, 'status' | 'pause'>, now: Date): PauseState {
  const p = t.pause;
  if (!p || t.status !== 'SUBSCRIPTION_STATUS_ACTIVE') return 'none';
  const at = now.getTime();
  if (at < Date.parse(p.startsAt)) return 'scheduled';
  if (p.resumesAt === null || at < Date.parse(p.resumesAt)) return 'paused';
  return 'none';
}

/** A pause or resume's write, or null when nothing changes (asked again, or not paused). */
export type PauseStep = PauseWrite | null;

type Billed = Transaction & { billing: NonNullable<Transaction['billing']> };

function billedSubscription(t: Transaction, what: string): Billed {
  if (t.type !== 'SUBSCRIPTION') throw invalidState(`Only a subscription can be ${what}; ${t.id} is ${t.type}.`);
  if (!t.billing) throw invalidState(`Subscription ${t.id} has no billing schedule.`);
  return t as Billed;
}

/** The schedule while paused until `resumesAt`: a resume date is the new anchor and the next charge. */
function pausedUntil(t: Billed, pause: SubscriptionPause, resumesAt: string | null): PauseWrite {
  return resumesAt === null
    ? {
        nextCharge: null,
        anchor: t.billing.anchor,
        anchorPeriod: t.billing.anchorPeriod ?? 0,
        pause: { ...pause, resumesAt },
      }
    : { nextCharge: resumesAt, anchor: resumesAt, anchorPeriod: t.billing.period, pause: { ...pause, resumesAt } };
}

/** A resume date must fall after the pause takes effect and after now: a pause of no time is no pause. */
function checkResumeDate(resumesAt: string | null, startsAt: string, now: Date): void {
  if (resumesAt === null) return;
  const earliest = Math.max(Date.parse(startsAt), now.getTime());
  if (Date.parse(resumesAt) <= earliest)
    throw invalidInput(
      `resumeAt must be after the end of the paid period (${startsAt}) and after now (${now.toISOString()}).`,
    );
}

/**
 * Pausing an active subscription at the end of its paid period, until `resumesAt` (null: until resumed
 * by hand). Paused already: the same resume date changes nothing; another one replaces it.
 */
export function planPause(t: Transaction, now: Date, resumesAt: string | null): PauseStep {
  const b = billedSubscription(t, 'paused');
  const state = pauseStateOf(t, now);
  if (state !== 'none') {
    const pause = t.pause!;
    if (pause.resumesAt === resumesAt) return null;
    checkResumeDate(resumesAt, pause.startsAt, now);
    return pausedUntil(b, pause, resumesAt);
  }
  if (t.status !== 'SUBSCRIPTION_STATUS_ACTIVE')
    throw invalidState(`Subscription ${t.id} cannot be paused: its status is ${t.status}.`);
  // A failing renewal is owed for a period the customer already has: it is paid or ends by dunning first.
  if (b.billing.failedAttempts > 0)
    throw invalidState(`Subscription ${t.id} cannot be paused while its renewal is failing (dunning).`);
  if (!t.nextCharge || Date.parse(t.nextCharge) <= now.getTime())
    throw invalidState(`Subscription ${t.id} cannot be paused while its renewal is due; try again once it is charged.`);
  checkResumeDate(resumesAt, t.nextCharge, now);
  const pause: SubscriptionPause = {
    startsAt: t.nextCharge,
    resumesAt: null,
    priorAnchor: b.billing.anchor,
    priorAnchorPeriod: b.billing.anchorPeriod ?? 0,
  };
  return pausedUntil(b, pause, resumesAt);
}

/** Called off before it took effect: the schedule as it was before the pause, and no pause. */
export function pauseCalledOff(t: Billed, pause: SubscriptionPause): PauseWrite {
  return {
    nextCharge: pause.startsAt,
    anchor: pause.priorAnchor ?? t.billing.anchor,
    anchorPeriod: pause.priorAnchorPeriod,
    pause: null,
  };
}

/** Resuming: a pause not in effect yet is called off; one in effect ends now, and a new period starts and is due now. */
export function planResume(t: Transaction, now: Date): PauseStep {
  const b = billedSubscription(t, 'resumed');
  const state = pauseStateOf(t, now);
  if (state === 'none') return null;
  const pause = t.pause!;
  if (state === 'scheduled') return pauseCalledOff(b, pause);
  const at = now.toISOString();
  return { nextCharge: at, anchor: at, anchorPeriod: b.billing.period, pause: { ...pause, resumesAt: at } };
}
