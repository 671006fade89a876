import type { Product } from '../../../domain/model.ts';
import type { FormBody } from '../form-body.ts';
import { html, type Html } from '../layout.ts';

/**
 * The product form's activation limit (docs/decisions.md §40): how many instances each licence key
 * may be activated on; empty is no limit. A per-seat product's keys get one per seat bought instead.
 */
export function activationLimitField(id: string, product: Product | undefined, typed: FormBody | undefined): Html {
  const value = typed ? (typed.activationLimit ?? '') : (product?.activationLimit?.toString() ?? '');
  return html`<label for="${id}">Activations per licence key (empty: no limit; per-seat products: one per seat)</label><input id="${id}" name="activationLimit" inputmode="numeric" value="${value}" data-testid="activation-limit">`;
}

/** The licence fields as typed: the activation limit a number for the domain to check, or null (no limit) when empty. */
export const licenceFieldsOf = (form: FormBody) => ({
  issuesLicences: form.licences === 'yes',
  activationLimit: form.activationLimit?.trim() ? Number(form.activationLimit.trim()) : null,
});
