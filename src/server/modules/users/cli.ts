import { formatMoney } from "#shared/money";
import { maskApiKey } from "#shared/api-keys";
import { requiredReason } from "../../lib/cli/args";
import { userNamed } from "../../lib/cli/user-argument";
import { UsageError, type CliCommand } from "../../lib/cli/command";
import { printRecord, printRecords, timeCell } from "../../lib/cli/records";
import { FOUND_MAX, disableUser, enableUser, findUsers, namesAnyone, userDetails, userSearchReadings, type UserRow } from "./service";
import { userLots } from "../ledger/index";
import { counted } from "../../lib/cli/counted";

const userJson = (user: UserRow) => ({
  id: user.id,
  phone: user.phone,
  balance: formatMoney(user.balance),
  createdAt: user.createdAt.toISOString(),
  disabledAt: user.disabledAt?.toISOString() ?? null,
  disabledReason: user.disabledReason,
});

/** `users find`'s exit codes: scripts read one user from a match of exactly one. */
const FOUND_NONE = 1;
const FOUND_SEVERAL = 2;

export const usersFindCommand: CliCommand = {
  name: "users find",
  summary: "find users by phone (whole, or 4+ digits of it), user id, API key, or masked key (tg_…wxyz); exit 0 for one user, 1 for none, 2 for several (listed)",
  usage: "users find <phone|digits|user-id|key|tg_…wxyz> [--json]",
  examples: ["users find 13800138000", "users find 8000", "users find tg_…x9Zq --json"],
  options: { json: false },
  async run(ctx, { positionals, options }) {
    const [words, ...extra] = positionals;
    if (!words || extra.length > 0) throw new UsageError("give one thing to look for");
    if (!namesAnyone(userSearchReadings(words))) throw new UsageError(`"${words}" names no user: give a phone number, 4 or more of its digits, a user id, an API key or a masked key (tg_…wxyz)`);
    const found = await findUsers(ctx.db, words);
    // No match in a table is the sentence below alone, not a header over no rows.
    if (found.length > 0 || options.json === true) {
      printRecords(ctx, found, {
        json: options.json === true,
        toJson: userJson,
        columns: [
          { header: "ID", value: (u) => String(u.id) },
          { header: "PHONE", value: (u) => u.phone },
          { header: "BALANCE", value: (u) => formatMoney(u.balance) },
          { header: "SIGNED UP", value: (u) => timeCell(u.createdAt) },
          { header: "STATE", value: (u) => (u.disabledAt ? "disabled" : "active") },
        ],
      });
    }
    if (found.length === 0) {
      // Fewer than 4 digits are read as an id only: say so, lest the operator take it that no phone has them.
      ctx.err(/^\d{1,3}$/.test(words.trim()) ? `no user has id ${words.trim()}; to search phone numbers, give at least 4 of their digits` : `no user matches "${words}"`);
      return FOUND_NONE;
    }
    if (found.length > 1) {
      const first = found.length === FOUND_MAX ? ` (the first ${FOUND_MAX}: narrow the search)` : "";
      ctx.err(`"${words}" matches ${found.length} users${first}: name one by its id, e.g. tollgate admin users show ${found[0]!.id}`);
      return FOUND_SEVERAL;
    }
    return 0;
  },
};

export const usersShowCommand: CliCommand = {
  name: "users show",
  summary: "one user: phone, sign-up, balance, keys with their spend, tool approvals (access applications approved), open holds, last calls, last failures (refused or failed calls), prepaid units left (packages, grants, free quotas)",
  usage: "users show <phone|user-id> [--json]",
  examples: ["users show 42", "users show 13800138000 --json"],
  options: { json: false },
  async run(ctx, { positionals, options }) {
    const user = await userNamed(ctx, positionals);
    if (!user) return 1;
    const details = (await userDetails(ctx.db, user.id, ctx.clock.now()))!;
    const now = ctx.clock.now();
    const lots = (await userLots(ctx.db, user.id)).filter((lot) => lot.unitsLeft > 0 && lot.refundedAt === null && lot.expiresAt > now);
    const keys = details.keys.map((k) => ({
      id: k.id,
      name: k.name,
      key: maskApiKey(k.prefix, k.last4),
      status: k.status,
      spent: formatMoney(k.spent),
      spendLimit: k.spendLimit === null ? null : formatMoney(k.spendLimit),
      spendLimitPeriod: k.spendLimitPeriod,
      periodSpent: formatMoney(k.periodSpend),
      lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
    }));
    const calls = (rows: typeof details.lastCalls) =>
      rows.map((c) => ({ requestId: c.requestId, tool: c.toolId, status: c.status, units: c.units, amount: formatMoney(c.amount), at: c.createdAt.toISOString() }));
    const document = {
      ...userJson(details.user),
      keys,
      // Access to tools that require approval (applications approved), not packages: those are `lots`.
      toolApprovals: details.grants.map((g) => ({ tool: g.toolId, approvedAt: g.grantedAt.toISOString() })),
      openHolds: calls(details.openHolds),
      lastCalls: calls(details.lastCalls),
      lastFailures: details.lastFailures.map((f) => ({ requestId: f.requestId, tool: f.toolId, httpStatus: f.httpStatus, code: f.code, message: f.message, at: f.receivedAt.toISOString() })),
      lots: lots.map((l) => ({ id: l.id, tool: l.toolId, source: l.source, name: l.label, unitsLeft: l.unitsLeft, unitsGranted: l.unitsGranted, expiresAt: l.expiresAt.toISOString() })),
    };
    printRecord(
      ctx,
      [
        ["id", String(user.id)],
        ["phone", user.phone],
        ["signed up", timeCell(user.createdAt)],
        ["balance", formatMoney(user.balance)],
        ["state", user.disabledAt ? `disabled ${timeCell(user.disabledAt)}: ${user.disabledReason ?? ""}` : "active"],
        ["keys", keys.map((k) => `#${k.id} ${k.key} ${k.status} spent ${k.spent}${k.spendLimit ? ` of ${k.spendLimit} (${k.spendLimitPeriod}, ${k.periodSpent} this period)` : ""} "${k.name}"`)],
        ["tool approvals", details.grants.map((g) => `${g.toolId} approved ${timeCell(g.grantedAt)}`)],
        ["open holds", details.openHolds.map((h) => `${h.requestId} ${h.toolId} ${formatMoney(h.amount)} since ${timeCell(h.createdAt)}`)],
        ["last calls", details.lastCalls.map((c) => `${timeCell(c.createdAt)} ${c.toolId} ${c.status} ${counted(c.units, "unit")} ${formatMoney(c.amount)} ${c.requestId}`)],
        ["last failures", details.lastFailures.map((f) => `${timeCell(f.receivedAt)} ${f.toolId} ${f.httpStatus} ${f.code} ${f.requestId}`)],
        ["prepaid units", lots.map((l) => `lot #${l.id} ${l.toolId} ${l.source} "${l.label}" ${l.unitsLeft}/${l.unitsGranted} until ${timeCell(l.expiresAt)}`)],
      ],
      { json: options.json === true, document },
    );
    return 0;
  },
};

export const usersDisableCommand: CliCommand = {
  name: "users disable",
  summary: "stop a user: no sign-in, sessions ended, keys refused at the gateway; the balance and ledger stay",
  usage: 'users disable <phone|user-id> --reason "…"',
  examples: ['users disable 42 --reason "chargeback on order 1234"'],
  options: { reason: true },
  async run(ctx, { positionals, options }) {
    const reason = requiredReason(options.reason, "it says why, for the next operator");
    const user = await userNamed(ctx, positionals);
    if (!user) return 1;
    if (!(await disableUser(ctx.db, { userId: user.id, reason, now: ctx.clock.now() }))) {
      ctx.err(`user ${user.id} is disabled already (since ${timeCell(user.disabledAt)}): nothing changed`);
      return 1;
    }
    ctx.out(`disabled user ${user.id} (${user.phone}): sessions ended, keys refused from now on`);
    return 0;
  },
};

export const usersEnableCommand: CliCommand = {
  name: "users enable",
  summary: "let a disabled user sign in and call again",
  usage: "users enable <phone|user-id>",
  examples: ["users enable 42"],
  async run(ctx, { positionals }) {
    const user = await userNamed(ctx, positionals);
    if (!user) return 1;
    if (!(await enableUser(ctx.db, user.id))) {
      ctx.err(`user ${user.id} is not disabled: nothing changed`);
      return 1;
    }
    ctx.out(`enabled user ${user.id} (${user.phone}): they may sign in and call again`);
    return 0;
  },
};
