import { sql } from "drizzle-orm";
import { ALERT_EVENT_TYPES } from "#shared/alerts";
import { queryRows, type Db } from "../../db/client";

/** Days before a lot's expiry that its owner is reminded, if it still has units then. */
export const LOT_REMINDER_DAYS = [7, 1] as const;

/** What a reminder's delivery carries; the units left are read again when it is sent. */
export interface LotReminderPayload {
  lotId: number;
  toolId: string;
  name: string;
  days: number;
}

/**
 * Writes an SMS delivery for every package or grant with units left that expires within 7 days
 * (and again within 1 day), once per lot and threshold: the event id `evt_lot_<lot>_<days>d` is
 * unique among reminders, so a second scan, a restart or another worker writes nothing. A lot
 * made inside a threshold's window (a 5-day package) gets no reminder for it, and a lot found only
 * after its 1-day mark gets only that one. Free quotas renew every period and are not reminded.
 */
export async function findExpiringLots(db: Db, now: Date): Promise<number> {
  const at = sql`${now.toISOString()}::timestamptz`;
  // Each reminder is due from its mark until the next one's: (7, 1) and (1, 0).
  const windows = sql.join(LOT_REMINDER_DAYS.map((d, i) => sql`(${d}::int, ${LOT_REMINDER_DAYS[i + 1] ?? 0}::int)`), sql`, `);
  const rows = await queryRows<{ n: number | string }>(
    db,
    sql`with due as (
          select l.id, l.user_id, l.tool_id, l.label, r.days, 'evt_lot_' || l.id || '_' || r.days || 'd' as event_id
          from unit_lots l cross join (values ${windows}) as r(days, until_days)
          where l.units_left > 0 and l.refunded_at is null and l.source <> 'free'
            and l.expires_at > ${at} and l.expires_at <= ${at} + make_interval(days => ${LOT_REMINDER_DAYS[0]})
            and l.expires_at - make_interval(days => r.days) <= ${at} and ${at} < l.expires_at - make_interval(days => r.until_days)
            and l.created_at < l.expires_at - make_interval(days => r.days)),
        written as (
          insert into alert_deliveries (user_id, event_id, event_type, channel, payload, next_attempt_at, created_at)
          select due.user_id, due.event_id, ${ALERT_EVENT_TYPES.lotExpiring}, 'sms',
                 json_build_object('lotId', due.id, 'toolId', due.tool_id, 'name', due.label, 'days', due.days)::text, ${at}, ${at}
          from due
          where not exists (select 1 from alert_deliveries d
                            where d.event_id = due.event_id and d.channel = 'sms' and d.event_type = ${ALERT_EVENT_TYPES.lotExpiring})
          on conflict (event_id, channel) where event_type = 'lot.expiring' do nothing
          returning 1)
        select count(*) as n from written`,
  );
  return Number(rows[0]?.n ?? 0);
}

/** A lot's units left and expiry when its reminder is sent; null when it has none left or was refunded. */
export async function lotStillHolding(db: Db, lotId: number): Promise<{ unitsLeft: number; expiresAt: Date } | null> {
  const [row] = await queryRows<{ units_left: string | number; expires_ms: string }>(
    db,
    sql`select units_left, (extract(epoch from expires_at) * 1000)::bigint::text as expires_ms
        from unit_lots where id = ${lotId} and units_left > 0 and refunded_at is null`,
  );
  return row ? { unitsLeft: Number(row.units_left), expiresAt: new Date(Number(row.expires_ms)) } : null;
}
