/** The plans an account may be on. Plans nest: free ⊂ basic ⊂ pro (each operation declares the least it needs). */
export type Plan = "free" | "basic" | "pro";

export const PLAN_RANK: Record<Plan, number> = { free: 0, basic: 1, pro: 2 };

export function planAllows(plan: Plan, required: Plan): boolean {
  return PLAN_RANK[plan] >= PLAN_RANK[required];
}
