import { tieredCost, type Tiers } from "#shared/tiers";
import { preparedRows, type Db, type PreparedStatement } from "../../db/client";
import { settleOne, type RefundItem } from "./refunds";

/** Adds a success's units to its month and answers how many the month counted before them; the row stays locked until commit. */
const COUNT_TIER_UNITS: PreparedStatement = {
  name: "count_tier_units",
  text: `insert into tier_counts (user_id, tool_id, month_start, units) values ($1::bigint, $2::text, $3::timestamptz, $4::bigint)
         on conflict (user_id, tool_id, month_start) do update set units = tier_counts.units + excluded.units
         returning (tier_counts.units - $4::bigint)::text as counted`,
};

/** A successful call of a tool with tiers, held at its dearest band's price, to be priced by its place in the month. */
export interface TieredSuccess {
  settlement: Omit<RefundItem, "amount" | "finalStatus">;
  toolId: string;
  tiers: Tiers;
  /** What the call holds from the balance. */
  held: bigint;
  /** The units the balance pays for (those no lot paid for). */
  balanceUnits: number;
  /** The Beijing month the call was charged in. */
  monthStart: Date;
}

class SettledBefore extends Error {}

/**
 * Prices a success by the units its user paid for in the month before it, adds its units to the
 * month and gives back what its hold did not cost, in one transaction: calls of one user and tool
 * are priced one after another, so the month's calls add up to the tiers' price of its units
 * whatever their concurrency (docs/decisions/058). settled false: the call was settled before (by
 * the abandoned-call sweep), and nothing moved.
 */
export async function settleTiered(db: Db, call: TieredSuccess): Promise<{ settled: boolean; cost: bigint }> {
  try {
    return await db.transaction(async (tx) => {
      let cost = 0n;
      if (call.balanceUnits > 0) {
        const [row] = await preparedRows<{ counted: string }>(tx, COUNT_TIER_UNITS, [
          call.settlement.userId,
          call.toolId,
          call.monthStart.toISOString(),
          call.balanceUnits,
        ]);
        cost = tieredCost(call.tiers, Number(row!.counted), call.balanceUnits);
      }
      if (!(await settleOne(tx, { ...call.settlement, amount: call.held - cost, finalStatus: "succeeded" }))) throw new SettledBefore();
      return { settled: true, cost };
    });
  } catch (error) {
    if (error instanceof SettledBefore) return { settled: false, cost: 0n };
    throw error;
  }
}
