/** A provider could not be reached, or refused us for our own reasons (credentials, configuration): not the user's fault. */
export class ProviderFailure extends Error {
  constructor(provider: string, cause: unknown) {
    super(`${provider} failed: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = "ProviderFailure";
  }
}

const TIMEOUT_MS = 10_000;

/** One call to a provider's HTTP API, answered with JSON whatever the status (both clouds put errors in the body). */
export async function callProviderJson(
  provider: string,
  url: string,
  init: { method: "POST"; headers: Record<string, string>; body?: string },
): Promise<{ status: number; json: unknown }> {
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
    return { status: response.status, json: await response.json() };
  } catch (error) {
    throw new ProviderFailure(provider, error);
  }
}
