/** Google API status names (`error.status`, gRPC-style) and the HTTP status each comes with. */
const GOOGLE_STATUS_CODES: Readonly<Record<string, number>> = {
  INVALID_ARGUMENT: 400,
  FAILED_PRECONDITION: 400,
  OUT_OF_RANGE: 400,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
  ABORTED: 409,
  ALREADY_EXISTS: 409,
  RESOURCE_EXHAUSTED: 429,
  CANCELLED: 499,
  INTERNAL: 500,
  UNKNOWN: 500,
  DATA_LOSS: 500,
  NOT_IMPLEMENTED: 501,
  UNAVAILABLE: 503,
  DEADLINE_EXCEEDED: 504,
};

/** The HTTP status of a Google API status name (`UNAUTHENTICATED` → 401); `undefined` for a name it does not know. */
export function googleStatusCode(name: string): number | undefined {
  return Object.hasOwn(GOOGLE_STATUS_CODES, name) ? GOOGLE_STATUS_CODES[name] : undefined;
}
