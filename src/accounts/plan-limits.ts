import type { Settings } from "../config.ts";
import type { Plan } from "./plans.ts";

/** Calls per month of a plan (settings MEHIR_QUOTA_*). */
export function planQuota(settings: Settings, plan: Plan): number {
  return plan === "pro" ? settings.quotaPro : plan === "basic" ? settings.quotaBasic : settings.quotaFree;
}

/** Requests per minute per key of a plan (settings MEHIR_RATE_*). */
export function planRate(settings: Settings, plan: Plan): number {
  return plan === "pro" ? settings.ratePro : plan === "basic" ? settings.rateBasic : settings.rateFree;
}

export const PLAN_NAMES: Record<Plan, string> = { free: "Free", basic: "Basic", pro: "Pro" };
