/** The token of an `Authorization: Bearer <token>` header (RFC 6750 §2.1), or null when there is none. */
export function bearerToken(authorization: string | undefined): string | null {
  return /^Bearer\s+(\S+)$/i.exec(authorization ?? "")?.[1] ?? null;
}
