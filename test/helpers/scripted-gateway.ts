import { FORM_CARD_ENTRY } from '../../src/gateways/sandbox-gateway.ts';
import type { ChargeRequest, ChargeResult, PaymentGateway } from '../../src/domain/payments/gateway.ts';

/**
 * The sandbox's own gateway with its charges scripted by a test (decline on demand, lose an answer,
 * wait, count): everything else is the real sandbox. `use` binds the real gateway once the test
 * app's database exists.
 */
export function scriptedSandbox(charge: (request: ChargeRequest, real: PaymentGateway) => Promise<ChargeResult>) {
  let real: PaymentGateway | undefined;
  const gateway: PaymentGateway = {
    provider: 'SANDBOX',
    ...FORM_CARD_ENTRY,
    tokenize: (card, now) => real!.tokenize(card, now),
    refund: (request) => real!.refund(request),
    lookupCharge: (attemptId) => real!.lookupCharge(attemptId),
    lookupRefund: (refundId) => real!.lookupRefund(refundId),
    charge: (request) => charge(request, real!),
  };
  return {
    gateway,
    use(sandbox: PaymentGateway) {
      real = sandbox;
    },
  };
}
