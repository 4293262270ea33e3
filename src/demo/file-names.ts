import { fmt, type LocalTime } from "./clock.ts";
import type { Profile } from "./profiles.ts";

export type FileKind = "Stores" | "StoresFull" | "PriceFull" | "Price" | "PromoFull" | "Promo";

/**
 * The name a chain gives a price or promo file, in its layout (research notes §3):
 * `PriceFull7290058140886-001-202611220530.gz` (legacy), `…-202611220530-001.xml.gz` (Matrix),
 * `PriceFull7290027600007-001-001-20261122-053000.gz` (2025-26 five-part).
 */
export function storeFileName(
  profile: Profile,
  kind: Exclude<FileKind, "Stores" | "StoresFull">,
  code: string,
  store: { id: string; subChain: string },
  time: LocalTime,
  options: { nullPrefix?: boolean; ext?: string } = {},
): string {
  const prefix = options.nullPrefix ? "NULL" : "";
  const ext = options.ext ?? profile.ext;
  switch (profile.layout) {
    case "new5":
      return `${prefix}${kind}${code}-${store.subChain.padStart(3, "0")}-${store.id.padStart(3, "0")}-${fmt.date8(time)}-${fmt.time6(time)}${ext}`;
    case "matrix":
      return `${prefix}${kind}${code}-${store.id}-${fmt.stamp12(time)}-001${ext}`;
    default:
      return `${prefix}${kind}${code}-${store.id}-${fmt.stamp12(time)}${ext}`;
  }
}

/** The name of a chain's stores file (one per chain code). */
export function storesFileName(profile: Profile, code: string, time: LocalTime): string {
  const fileCode = profile.storesFileCode ?? code;
  switch (profile.storesLayout) {
    case "bina":
      return `StoresFull${fileCode}-000-${fmt.stamp12(time)}${profile.storesExt}`;
    case "superpharm":
      return `StoresFull${fileCode}--${fmt.stamp12(time)}${profile.storesExt}`;
    case "matrix":
      return `StoresFull${fileCode}-000-${fmt.stamp12(time)}-000${profile.storesExt}`;
    case "sub000":
      return `Stores${fileCode}-000-${fmt.stamp12(time)}${profile.storesExt}`;
    default:
      return `Stores${fileCode}-${fmt.stamp12(time)}${profile.storesExt}`;
  }
}
