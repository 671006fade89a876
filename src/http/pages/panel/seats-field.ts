import { parsePriceText } from '../../../domain/catalog/index.ts';
import { AppError } from '../../../domain/errors.ts';
import type { Product } from '../../../domain/model.ts';
import type { FormBody } from '../form-body.ts';
import { html, type Html } from '../layout.ts';
import { priceText } from './price-lists.ts';

/**
 * The product form's seats (docs/decisions.md §39): sold per seat or not, the range, and volume tiers
 * written one a line as "10: USD 8.00, EUR 7.50" (from 10 seats on, every seat at those prices).
 */
export function seatsFieldset(prefix: string, product: Product | undefined, typed: FormBody | undefined): Html {
  const seats = product?.seats ?? null;
  const perSeat = typed ? typed.perSeat === 'yes' : seats !== null;
  const tiers =
    typed?.seatTiers ?? (seats?.tiers ?? []).map((t) => `${t.fromQuantity}: ${priceText(t.prices)}`).join('\n');
  return html`<fieldset class="seats" data-testid="seats"><legend>Seats</legend>
    <label class="check"><input type="checkbox" name="perSeat" value="yes"${perSeat ? html` checked` : ''}> Sold per seat: the buyer chooses how many, the prices above are per seat</label>
    <div class="row">
      <div><label for="${prefix}seatMin">Fewest seats</label><input id="${prefix}seatMin" name="seatMin" inputmode="numeric" value="${typed?.seatMin ?? String(seats?.minQuantity ?? 1)}"></div>
      <div><label for="${prefix}seatMax">Most seats</label><input id="${prefix}seatMax" name="seatMax" inputmode="numeric" value="${typed?.seatMax ?? String(seats?.maxQuantity ?? 100)}"></div>
    </div>
    <label for="${prefix}seatTiers">Volume tiers, one a line: from that many seats on, every seat costs (optional)</label>
    <textarea id="${prefix}seatTiers" name="seatTiers" rows="2" placeholder="10: USD 8.00">${tiers}</textarea>
  </fieldset>`;
}

/** The seats as typed, for the domain to check (src/domain/catalog/seats.ts): null when not sold per seat. */
export function seatsOf(form: FormBody): unknown {
  if (form.perSeat !== 'yes') return null;
  const tiers = (form.seatTiers ?? '')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const match = /^(\d+)\s*\+?\s*:\s*(.+)$/.exec(line);
      if (!match) throw new AppError('INVALID_INPUT', `Write a tier as "10: USD 8.00"; "${line}" is not one.`);
      return { fromQuantity: Number(match[1]), prices: parsePriceText(match[2]) };
    });
  const number = (text: string | undefined) => (text?.trim() ? text.trim() : undefined);
  return { minQuantity: number(form.seatMin), maxQuantity: number(form.seatMax), tiers };
}

/** The product form's prices (per seat when sold per seat) and seats, as typed. */
export const pricesAndSeatsOf = (form: FormBody) => ({ prices: parsePriceText(form.prices), seats: seatsOf(form) });
