"use client";

import { setNonce } from "get-nonce";

/**
 * Radix dialogs lock scrolling with a <style> element they inject; under our CSP (style-src with a nonce)
 * it must carry the request's nonce, which get-nonce hands to them.
 */
export function StyleNonce({ nonce }: { nonce: string | undefined }) {
  if (nonce && typeof window !== "undefined") setNonce(nonce);
  return null;
}
