import { sql } from "drizzle-orm";
import type { FastifyBaseLogger } from "fastify";
import { ALERT_EVENT_TYPES } from "#shared/alerts";
import { beijingDateTime } from "#shared/beijing-time";
import { formatMoney } from "#shared/money";
import { spendPeriodStart } from "#shared/spend-period";
import type { AlertsConfig } from "./config";
import { queryRows, type Db } from "../../db/client";
import type { SmsProvider } from "../../providers/sms/index";
import { lotStillHolding, type LotReminderPayload } from "./lot-expiry";
import { signWebhook } from "./signature";
import type { WebhookSender } from "./webhook-sender";

/** Charges are found up to this long after they were stamped, so a batch that commits late is not missed. */
const SCAN_GRACE_MS = 60_000;
/** How long a pending hold waits for its call to end before it is judged as it stands; well inside SCAN_GRACE_MS, so it is scanned again. */
const HOLD_SETTLE_WAIT_MS = 30_000;
/**
 * How far apart the fleet's clocks may be. Refunds are stamped by the process that settled them: a
 * refund written after a charge is looked for this far before the scan's start. And a ledger id a
 * scan saw at its own time is passed over only once the window is this far past that time.
 */
const CLOCK_SLACK_MS = 60_000;
/** A claimed delivery is not claimed again for this long, unless its sender finished with it. */
const CLAIM_LEASE_MS = 120_000;
/** Waits after each failed attempt; after the last, the delivery has failed. */
export const RETRY_DELAYS_MS = [10_000, 60_000, 300_000, 1_800_000, 7_200_000, 21_600_000];
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
/** A test event is tried once: it shows the user what their receiver answers, and a retry schedule would only repeat it. */
const attemptsAllowed = (delivery: Pick<Claimed, "event_type">) => (delivery.event_type === ALERT_EVENT_TYPES.test ? 1 : MAX_ATTEMPTS);

/**
 * Writes a delivery for every charge that took a balance from at or above its owner's threshold
 * to below it: an SMS, and a webhook when the user set one. Found in the ledger after the charges
 * committed, so the charge path does no work for alerts; one crossing is one ledger entry, and the
 * unique (entry, channel) index makes a second scan of the same entries write nothing. A balance
 * must rise to the threshold again before a charge can cross it again, so crossing re-arms by itself.
 * A call's hold counts as it settles: what the gateway gave back of it (all of a failed call's) is
 * added back, and a hold still pending waits up to HOLD_SETTLE_WAIT_MS for its call to end (a
 * longer call is judged by its hold), so a call that failed never reads as a charge. What an
 * earlier call's hold gave back after a charge is added to that charge's balances too: a charge
 * made while another call held more than it cost is judged by the balance the user had. One
 * running sum per user over the scan's entries (`given_back`), not a lookup per charge.
 *
 * The window is read by ledger id, from `passed_id` on (`alert_scan`): no entry up to it can be
 * stamped in a window still to be read. An id is taken when its entry is written, after it was
 * stamped, so every entry up to the highest id a scan sees was stamped before that scan (`mark_id`
 * at `mark_at`), however late it committed; once every later window starts CLOCK_SLACK_MS after
 * mark_at, the mark is passed and the scan takes a new one. A scan reads from 2 to 4 minutes of
 * the ledger, and the whole of it until its first mark has passed.
 */
export async function findCrossings(db: Db, now: Date): Promise<number> {
  // Read first, so the planner knows how few entries lie after it.
  const [scan] = await queryRows<{ passed_id: number | string }>(db, sql`select passed_id from alert_scan where id = 1`);
  const passedId = scan?.passed_id ?? 0;
  const markPassed = sql`alert_scan.mark_at <= greatest(alert_scan.scanned_to, excluded.scanned_to) - ${`${SCAN_GRACE_MS + CLOCK_SLACK_MS} milliseconds`}::interval`;
  const rows = await queryRows<{ n: number | string }>(
    db,
    sql`with since as (
          select coalesce((select scanned_to from alert_scan where id = 1), ${now.toISOString()}::timestamptz)
                 - ${`${SCAN_GRACE_MS} milliseconds`}::interval as at),
        charges as (
          select e.id, e.user_id, e.amount, e.balance_after, e.reference, e.created_at, s.threshold, s.webhook_url
          from ledger_entries e
          join alert_settings s on s.user_id = e.user_id
          where e.id > ${passedId}::bigint and s.threshold is not null and e.kind = 'charge'
            and e.created_at >= greatest(s.watched_since, (select at from since))),
        -- The gateway's refunds of calls, written since the scan's start: each gives its amount back
        -- to every entry from its call's charge up to itself. Only those after passed_id: a refund
        -- comes after its call's charge, so one before every charge read gives back nothing after
        -- them. Those of users with no charge read change nothing either (the sum is per user and
        -- read only at charges), but a filter on them plans as a loop over charges per refund.
        refunds as (
          select lr.user_id, lr.id, lc.id as charge_id, lr.amount
          from ledger_entries lr
          join ledger_entries lc on lc.user_id = lr.user_id and lc.idempotency_key = 'usage:' || lr.reference
          where lr.id > ${passedId}::bigint
            and lr.kind = 'refund' and lr.idempotency_key = 'refund:' || lr.reference
            and lr.created_at >= (select at from since) - ${`${CLOCK_SLACK_MS} milliseconds`}::interval),
        -- Given back after a charge by calls charged up to it, its own included: the refunds written
        -- after it, less those of calls charged after it; a running sum from the newest entry down.
        steps as (
          select user_id, id as at_id, amount as delta, null::bigint as charge_id from refunds
          union all select user_id, charge_id, -amount, null from refunds
          union all select user_id, id, 0, id from charges),
        given_back as (
          select charge_id, sum(delta) over (partition by user_id order by at_id desc, charge_id nulls last rows unbounded preceding) as later
          from steps),
        found as (
          select c.id, c.user_id, c.balance_after + g.later as balance_after, c.threshold, c.created_at, c.webhook_url
          from charges c
          join given_back g on g.charge_id = c.id
          left join refunds own on own.charge_id = c.id
          where c.balance_after - c.amount + g.later - coalesce(own.amount, 0) >= c.threshold
            and c.balance_after + g.later < c.threshold
            and (c.created_at < ${new Date(now.getTime() - HOLD_SETTLE_WAIT_MS).toISOString()}::timestamptz
                 or not exists (select from usage_records u where u.request_id = c.reference and u.status = 'pending'))),
        written as (
          insert into alert_deliveries (user_id, event_id, event_type, channel, ledger_entry_id, payload, next_attempt_at, created_at)
          select f.user_id, 'evt_' || f.id, ${ALERT_EVENT_TYPES.lowBalance}, c.channel, f.id,
                 json_build_object('balance', f.balance_after::text, 'threshold', f.threshold::text, 'at', f.created_at)::text,
                 ${now.toISOString()}::timestamptz, ${now.toISOString()}::timestamptz
          from found f cross join (values ('sms'::alert_channel), ('webhook'::alert_channel)) as c(channel)
          where c.channel = 'sms' or f.webhook_url is not null
          on conflict (ledger_entry_id, channel) do nothing
          returning 1),
        moved as (
          insert into alert_scan (id, scanned_to, mark_id, mark_at)
          values (1, ${now.toISOString()}::timestamptz, (select coalesce(max(id), 0) from ledger_entries), ${now.toISOString()}::timestamptz)
          on conflict (id) do update set scanned_to = greatest(alert_scan.scanned_to, excluded.scanned_to),
            passed_id = case when ${markPassed} then alert_scan.mark_id else alert_scan.passed_id end,
            mark_id = case when ${markPassed} then excluded.mark_id else alert_scan.mark_id end,
            mark_at = case when ${markPassed} then excluded.mark_at else alert_scan.mark_at end)
        select count(*) as n from written`,
  );
  return Number(rows[0]?.n ?? 0);
}

interface Claimed {
  id: number;
  user_id: number;
  event_id: string;
  event_type: string;
  channel: "sms" | "webhook";
  payload: string;
  attempts: number;
  created_at: string;
  phone: string;
  webhook_url: string | null;
  webhook_secret_sealed: string | null;
}

async function claimDue(db: Db, now: Date, limit: number): Promise<Claimed[]> {
  const rows = await queryRows<Claimed & { id: string | number; user_id: string | number; created_at: string | Date }>(
    db,
    sql`with due as (
          select id from alert_deliveries where status = 'pending' and next_attempt_at <= ${now.toISOString()}::timestamptz
          order by event_type = ${ALERT_EVENT_TYPES.test}, next_attempt_at, id limit ${limit} for update skip locked),
        claimed as (
          update alert_deliveries d set attempts = d.attempts + 1,
            next_attempt_at = ${new Date(now.getTime() + CLAIM_LEASE_MS).toISOString()}::timestamptz
          from due where d.id = due.id
          returning d.id, d.user_id, d.event_id, d.event_type, d.channel, d.payload, d.attempts, d.created_at)
        select c.*, u.phone, s.webhook_url, s.webhook_secret_sealed
        from claimed c join users u on u.id = c.user_id left join alert_settings s on s.user_id = c.user_id
        order by c.id`,
  );
  return rows.map((r) => ({ ...r, id: Number(r.id), user_id: Number(r.user_id), created_at: new Date(r.created_at).toISOString() }));
}

type Outcome = { status: "delivered" | "skipped" } | { status: "retry"; error: string } | { status: "skipped"; error: string };

type DeliveryStatus = "delivered" | "skipped" | "failed" | "pending";

/** Records an attempt's outcome on its delivery; returns the delivery's status now (pending: tried again later). */
async function settle(db: Db, delivery: Claimed, outcome: Outcome, now: Date): Promise<DeliveryStatus> {
  const error = "error" in outcome ? outcome.error : null;
  let status: DeliveryStatus;
  let next = now;
  if (outcome.status === "retry") {
    status = delivery.attempts >= attemptsAllowed(delivery) ? "failed" : "pending";
    next = new Date(now.getTime() + RETRY_DELAYS_MS[Math.min(delivery.attempts, RETRY_DELAYS_MS.length) - 1]!);
  } else status = outcome.status;
  await db.execute(sql`
    update alert_deliveries set status = ${status}::alert_delivery_status, last_error = ${error},
      next_attempt_at = ${next.toISOString()}::timestamptz,
      delivered_at = ${status === "delivered" ? now.toISOString() : null}::timestamptz
    where id = ${delivery.id}`);
  return status;
}

/** The body a webhook receives for a delivery; the same on every attempt. */
export function webhookBody(delivery: Pick<Claimed, "event_type" | "payload" | "created_at">): string {
  const payload = JSON.parse(delivery.payload) as { balance?: string; threshold?: string };
  const data =
    delivery.event_type === ALERT_EVENT_TYPES.lowBalance
      ? { balance: formatMoney(BigInt(payload.balance!)), threshold: formatMoney(BigInt(payload.threshold!)) }
      : { message: "a test event from the console" };
  return JSON.stringify({ type: delivery.event_type, timestamp: delivery.created_at, data });
}

export interface DeliveryDeps {
  db: Db;
  config: AlertsConfig;
  sms: SmsProvider;
  webhooks: WebhookSender;
  openSecret(sealed: string): string;
  log: FastifyBaseLogger;
  /** A tool's name and a count of its units as an SMS words them (`5 calls`, `5 units (character)`), from the catalog. */
  toolWords(toolId: string, units: number): { toolName: string; unitsLeft: string };
  /** Told each attempt's outcome, for the metrics (retry: it failed and is tried again later). */
  attempted(channel: "sms" | "webhook", result: "delivered" | "skipped" | "failed" | "retry"): void;
}

/**
 * Takes one of the user's alert SMS of the day for this delivery, or says none is left. The count
 * and the taking happen under a lock per user, so workers sending that user's SMS at the same
 * instant cannot each see a free slot: the delivery counts as sent from here, and settles back to
 * pending if the provider then fails. A process that dies before sending loses that alert rather
 * than exceed the cap.
 */
async function reserveSmsSlot(deps: DeliveryDeps, delivery: Claimed, now: Date): Promise<boolean> {
  const dayStart = spendPeriodStart("day", now)!;
  return deps.db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`alert-sms:${delivery.user_id}`}, 0))`);
    const [sent] = await queryRows<{ n: number | string }>(
      tx,
      sql`select count(*) as n from alert_deliveries where user_id = ${delivery.user_id} and channel = 'sms'
          and status = 'delivered' and delivered_at >= ${dayStart.toISOString()}::timestamptz`,
    );
    if (Number(sent?.n ?? 0) >= deps.config.smsPerUserPerDay) return false;
    await tx.execute(sql`
      update alert_deliveries set status = 'delivered', delivered_at = ${now.toISOString()}::timestamptz where id = ${delivery.id}`);
    return true;
  });
}

/** How a delivery's SMS is sent, or why it is not: a lot reminder goes only while its lot still has units. */
async function smsSender(deps: DeliveryDeps, delivery: Claimed): Promise<{ send(template: string | null, now: Date): Promise<void> } | { error: string }> {
  const common = { phone: delivery.phone, log: deps.log };
  if (delivery.event_type !== ALERT_EVENT_TYPES.lotExpiring) {
    const payload = JSON.parse(delivery.payload) as { balance: string; threshold: string };
    const figures = { balance: formatMoney(BigInt(payload.balance)), threshold: formatMoney(BigInt(payload.threshold)) };
    return { send: (template, now) => deps.sms.sendLowBalanceAlert({ ...common, ...figures, template, now }) };
  }
  const payload = JSON.parse(delivery.payload) as LotReminderPayload;
  const lot = await lotStillHolding(deps.db, payload.lotId);
  if (!lot) return { error: "the lot has no units left" };
  const words = { packageName: payload.name, ...deps.toolWords(payload.toolId, lot.unitsLeft), expiresAt: beijingDateTime(lot.expiresAt) };
  return { send: (template, now) => deps.sms.sendLotExpiryReminder({ ...common, ...words, template, now }) };
}

async function sendSms(deps: DeliveryDeps, delivery: Claimed, now: Date): Promise<Outcome> {
  const templates = delivery.event_type === ALERT_EVENT_TYPES.lotExpiring ? deps.config.lotSmsTemplate : deps.config.smsTemplate;
  const template = deps.sms.name === "console" ? null : templates[deps.sms.name];
  if (deps.sms.name !== "console" && !template) return { status: "skipped", error: "no SMS template is configured for this alert" };
  const sender = await smsSender(deps, delivery);
  if ("error" in sender) return { status: "skipped", error: sender.error };
  if (!(await reserveSmsSlot(deps, delivery, now))) return { status: "skipped", error: "the day's alert SMS limit was reached" };
  try {
    await sender.send(template, now);
    return { status: "delivered" };
  } catch (error) {
    return { status: "retry", error: (error as Error).message.slice(0, 300) };
  }
}

async function sendWebhook(deps: DeliveryDeps, delivery: Claimed, now: Date): Promise<Outcome> {
  if (!delivery.webhook_url || !delivery.webhook_secret_sealed) return { status: "skipped", error: "no webhook URL is set" };
  const body = webhookBody(delivery);
  const headers = signWebhook(deps.openSecret(delivery.webhook_secret_sealed), {
    id: delivery.event_id,
    timestamp: Math.floor(now.getTime() / 1000),
    body,
  });
  const result = await deps.webhooks.send(delivery.webhook_url, headers, body);
  // The host only: a webhook URL's path or query may hold the receiver's own token.
  if (result.detail) deps.log.warn({ deliveryId: delivery.id, userId: delivery.user_id, host: new URL(delivery.webhook_url).hostname, detail: result.detail }, "webhook not delivered");
  await deps.db.execute(sql`
    insert into alert_attempts (delivery_id, attempted_at, http_status, error)
    values (${delivery.id}, ${now.toISOString()}::timestamptz, ${result.httpStatus}, ${result.error})`);
  return result.ok ? { status: "delivered" } : { status: "retry", error: result.error ?? "failed" };
}

/**
 * Sends what is due. SMS go one after another, so the day's cap is counted exactly; webhooks go
 * side by side. Returns how many deliveries were handled.
 */
export async function deliverDue(deps: DeliveryDeps, now: () => Date, limit = 200): Promise<number> {
  const claimed = await claimDue(deps.db, now(), limit);
  const webhooks = claimed.filter((d) => d.channel === "webhook");
  const counted = (channel: "sms" | "webhook", status: DeliveryStatus) => deps.attempted(channel, status === "pending" ? "retry" : status);
  const sending = Promise.all(webhooks.map(async (d) => counted("webhook", await settle(deps.db, d, await sendWebhook(deps, d, now()), now()))));
  for (const d of claimed.filter((c) => c.channel === "sms")) counted("sms", await settle(deps.db, d, await sendSms(deps, d, now()), now()));
  await sending;
  return claimed.length;
}

/** How long a finished delivery and its attempts are kept: the console shows the latest ones. */
export const FINISHED_DELIVERY_RETENTION_MS = 90 * 24 * 3600_000;

/**
 * Deletes deliveries finished (delivered, failed, skipped) before `olderThan`, with their attempts;
 * pending ones stay. Crossings are looked for only in the last minute's ledger entries, so a
 * deleted delivery is never written again.
 */
export async function purgeFinishedDeliveries(db: Db, olderThan: Date): Promise<number> {
  const rows = await queryRows<{ n: number | string }>(
    db,
    sql`with old as (
          select id from alert_deliveries where status <> 'pending' and created_at < ${olderThan.toISOString()}::timestamptz),
        attempts as (delete from alert_attempts where delivery_id in (select id from old)),
        deleted as (delete from alert_deliveries where id in (select id from old) returning 1)
        select count(*) as n from deleted`,
  );
  return Number(rows[0]?.n ?? 0);
}
