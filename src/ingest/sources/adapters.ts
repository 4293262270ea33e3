import type { Portal } from "../../registry.ts";
import { BinaAdapter } from "./bina.ts";
import { CerberusAdapter } from "./cerberus.ts";
import { CerberusFtpAdapter, isFtpUrl } from "./cerberus-ftp.ts";
import { CityMarketAdapter } from "./citymarket.ts";
import { HaziHinamAdapter } from "./hazihinam.ts";
import { LaibAdapter } from "./laib.ts";
import { MeshnatYosefAdapter } from "./meshnatyosef.ts";
import { NetivHaHesedAdapter } from "./netivhahesed.ts";
import { PublishPriceAdapter } from "./publishprice.ts";
import { ShufersalAdapter } from "./shufersal.ts";
import { SuperPharmAdapter } from "./superpharm.ts";
import type { AdapterContext, PortalAdapter } from "./types.ts";
import { WoltAdapter } from "./wolt.ts";

const FACTORIES: Record<Portal["family"], (ctx: AdapterContext) => PortalAdapter> = {
  cerberus: (ctx) => (isFtpUrl(ctx.portal.base_url) ? new CerberusFtpAdapter(ctx, ctx.portal.base_url) : new CerberusAdapter(ctx)),
  bina: (ctx) => new BinaAdapter(ctx),
  laib: (ctx) => new LaibAdapter(ctx),
  publishprice: (ctx) => new PublishPriceAdapter(ctx),
  shufersal: (ctx) => new ShufersalAdapter(ctx),
  superpharm: (ctx) => new SuperPharmAdapter(ctx),
  wolt: (ctx) => new WoltAdapter(ctx),
  hazihinam: (ctx) => new HaziHinamAdapter(ctx),
  citymarket: (ctx) => new CityMarketAdapter(ctx),
  netivhahesed: (ctx) => new NetivHaHesedAdapter(ctx),
  meshnatyosef: (ctx) => new MeshnatYosefAdapter(ctx),
};

/**
 * The adapter of a portal family. A Cerberus portal whose URL is `ftp://…` or `ftps://…` gets the FTP adapter.
 * @example createAdapter({ chain, portal: chain.portal, http: new HttpClient(), log })
 */
export function createAdapter(ctx: AdapterContext): PortalAdapter {
  return FACTORIES[ctx.portal.family](ctx);
}

/**
 * The portal to try when `portal` fails: its `fallback_url` with the same family and
 * credentials, or null.
 * @example fallbackPortal(registry.bySlug.get("rami-levy")!.portal)?.base_url // "ftp://url.retail.publishedprices.co.il"
 */
export function fallbackPortal(portal: Portal): Portal | null {
  if (!portal.fallback_url) return null;
  return { ...portal, base_url: portal.fallback_url, fallback_url: null };
}
