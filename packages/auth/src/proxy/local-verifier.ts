import type { AuthInfo } from "@toolsmith/core";
import { jwtVerify } from "jose";
import type { SigningKey } from "./signing-key.js";

// The proxy's own tokens verified: issuer, audience (this resource), ES256 with the proxy's key.

export function localVerifier(
  key: () => Promise<SigningKey>,
  issuer: string,
  audience: string,
): (request: Request) => Promise<AuthInfo | undefined> {
  return async (request) => {
    const header = request.headers.get("authorization");
    if (!header?.toLowerCase().startsWith("bearer ")) return undefined;
    try {
      const { payload } = await jwtVerify(header.slice(7).trim(), (await key()).publicKey, {
        issuer,
        audience,
        algorithms: ["ES256"],
        clockTolerance: 5,
      });
      if (typeof payload.sub !== "string") return undefined;
      return {
        subject: payload.sub,
        scopes: typeof payload.scope === "string" ? payload.scope.split(" ").filter(Boolean) : [],
        ...(typeof payload.client_id === "string" ? { clientId: payload.client_id } : {}),
        ...(payload.exp === undefined ? {} : { expiresAt: payload.exp }),
        issuer,
        claims: payload,
      };
    } catch {
      return undefined;
    }
  };
}
