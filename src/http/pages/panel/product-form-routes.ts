import type { FastifyReply } from 'fastify';
import type { PanelSession } from '../../../domain/accounts/index.ts';
import { invalidInput } from '../../../domain/errors.ts';
import type { Environment } from '../../../domain/model.ts';
import type { FormBody } from '../form-body.ts';
import type { PanelRouting } from './panel-routing.ts';

/** The Products page shown again after a refused form, with the error and what was typed. */
export type ProductsPage = (
  reply: FastifyReply,
  session: PanelSession,
  environment: Environment,
  extra: { status?: number; error?: string; form?: FormBody; formOf?: string },
) => Promise<unknown>;

/**
 * The product form's archive and image (docs/decisions.md §42). Archiving and putting on sale again
 * each need the form's confirmation box ticked: one stops every checkout of the product at once.
 */
export function registerProductFormActions(
  { services, action, to }: Pick<PanelRouting, 'services' | 'action' | 'to'>,
  productsPage: ProductsPage,
) {
  action(
    '/panel/products/archive',
    (reply, session, environment, error, form) =>
      productsPage(reply, session, environment, { status: 400, error, formOf: form.id }),
    async (_session, scope, form, reply) => {
      const archive = form.action === 'archive';
      if (!archive && form.action !== 'unarchive')
        throw invalidInput('Choose to archive the product or to sell it again.');
      if (form.confirm !== 'yes')
        throw invalidInput(
          archive
            ? 'Tick the box to confirm that nobody may buy this product any more.'
            : 'Tick the box to confirm that this product is on sale again.',
        );
      const id = form.id ?? '';
      if (archive) await services.catalog.archiveProduct(scope, id);
      else await services.catalog.unarchiveProduct(scope, id);
      return to(reply, '/panel/products', scope.environment, archive ? 'product-archived' : 'product-unarchived');
    },
  );

  action(
    '/panel/products/image/remove',
    (reply, session, environment, error, form) =>
      productsPage(reply, session, environment, { status: 400, error, formOf: form.id }),
    async (_session, scope, form, reply) => {
      await services.catalog.removeProductImage(scope, form.id ?? '');
      return to(reply, '/panel/products', scope.environment, 'product-image-removed');
    },
  );
}
