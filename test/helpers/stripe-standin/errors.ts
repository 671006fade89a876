/**
 * Errors as Stripe's API answers them: an HTTP status and `{ error: { type, code, message, param, ... } }`.
 * A handler throws an ApiError; the server turns it into the answer.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly error: Record<string, unknown>;
  constructor(status: number, error: Record<string, unknown>) {
    super(String(error.message));
    this.status = status;
    this.error = error;
  }
}

const docUrl = (code: string) => `https://stripe.com/docs/error-codes/${code.replace(/_/g, '-')}`;

function build(type: string, message: string, extra: { code?: string; param?: string; [k: string]: unknown } = {}) {
  const error: Record<string, unknown> = { type, message };
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) error[k] = v;
  if (typeof extra.code === 'string') error.doc_url = docUrl(extra.code);
  return error;
}

export const invalidRequest = (message: string, extra: { code?: string; param?: string; [k: string]: unknown } = {}) =>
  new ApiError(400, build('invalid_request_error', message, extra));

export const notFound = (objectName: string, id: string, param = 'id') =>
  new ApiError(
    404,
    build('invalid_request_error', `No such ${objectName}: '${id}'`, { code: 'resource_missing', param }),
  );

export const cardError = (
  message: string,
  extra: { code: string; decline_code?: string; param?: string; [k: string]: unknown },
) => new ApiError(402, build('card_error', message, extra));

export const missingParam = (param: string) =>
  invalidRequest(`Missing required param: ${param}.`, { code: 'parameter_missing', param });

export const unknownParam = (param: string) =>
  invalidRequest(`Received unknown parameter: ${param}`, { code: 'parameter_unknown', param });

/** A parameter Stripe documents for this endpoint but the stand-in does not model: said plainly, never silently ignored. */
export const unmodelledParam = (param: string) =>
  invalidRequest(
    `The Stripe stand-in does not implement the parameter '${param}'. Stripe documents it for this endpoint, but the stand-in only models the parameters opentill sends; add it to test/helpers/stripe-standin if opentill starts sending it.`,
    { param },
  );

export const publishableKeyForbidden = () =>
  new ApiError(
    401,
    build(
      'invalid_request_error',
      'This API call cannot be made with a publishable API key. Please use a secret API key. You can find a list of your API keys at https://dashboard.stripe.com/account/apikeys.',
    ),
  );

export const apiError500 = () =>
  new ApiError(
    500,
    build(
      'api_error',
      'An unknown error occurred. Please try again later. (Injected by the Stripe stand-in: error-500 fault.)',
    ),
  );
