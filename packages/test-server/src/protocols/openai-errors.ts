const ERROR_TYPES: Record<number, { type: string; code: string | null }> = {
  400: { type: 'invalid_request_error', code: null },
  401: { type: 'invalid_request_error', code: 'invalid_api_key' },
  403: { type: 'invalid_request_error', code: 'unsupported_country_region_territory' },
  404: { type: 'invalid_request_error', code: 'model_not_found' },
  429: { type: 'rate_limit_exceeded', code: 'rate_limit_exceeded' },
};

/** The OpenAI error body: `{"error":{"message":…,"type":…,"param":…,"code":…}}`. */
export function openAiErrorBody(status: number, message: string, param: string | null = null): unknown {
  const kind = ERROR_TYPES[status] ?? (status >= 500 ? { type: 'server_error', code: 'server_error' } : { type: 'invalid_request_error', code: null });
  return { error: { message, type: kind.type, param, code: kind.code } };
}
