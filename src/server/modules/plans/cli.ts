import { randomUUID } from "node:crypto";
import { formatMoney } from "#shared/money";
import { oneId, parseCount, requiredReason, storedText } from "../../lib/cli/args";
import { UsageError, type CliCommand, type CliContext } from "../../lib/cli/command";
import { printRecords, timeCell } from "../../lib/cli/records";
import { userNamed } from "../../lib/cli/user-argument";
import { loadCatalog } from "../catalog/index";
import { grantPackage, refundLot, userLots, type Lot } from "../ledger/index";
import { lotView, packageTerms } from "./lots";
import { counted } from "../../lib/cli/counted";

/** The package `--package <tool>/<package>` names in the catalog the server runs with. */
function namedPackage(ctx: CliContext, named: string | boolean | undefined) {
  if (typeof named !== "string" || !/^[^/]+\/[^/]+$/.test(named)) throw new UsageError("give --package <tool id>/<package id>, e.g. --package ocr/starter");
  const [toolId, packageId] = named.split("/") as [string, string];
  const tool = loadCatalog(ctx.config.toolsCatalog).find((t) => t.id === toolId);
  if (!tool) throw new UsageError(`the catalog has no tool "${toolId}"`);
  const terms = packageTerms(tool, packageId);
  if (!terms) throw new UsageError(`the tool ${toolId} sells no package "${packageId}"; it sells: ${tool.packages.map((p) => p.id).join(", ") || "none"}`);
  return terms;
}


function printLots(ctx: CliContext, lots: Lot[], json: boolean, empty?: string) {
  printRecords(ctx, lots, {
    json,
    empty,
    toJson: (lot) => lotView(lot, ctx.clock.now()),
    columns: [
      { header: "LOT", value: (l) => String(l.id) },
      { header: "TOOL", value: (l) => l.toolId },
      { header: "SOURCE", value: (l) => l.source },
      { header: "NAME", value: (l) => l.label },
      { header: "LEFT", value: (l) => `${l.unitsLeft}/${l.unitsGranted}` },
      { header: "PAID", value: (l) => formatMoney(l.pricePaid) },
      { header: "EXPIRES", value: (l) => timeCell(l.expiresAt) },
      { header: "REFUNDED", value: (l) => timeCell(l.refundedAt) },
    ],
  });
}

/** The most packages one grant gives. */
const MAX_GRANT_COUNT = 100;

export const packagesGrantCommand: CliCommand = {
  name: "packages grant",
  summary: "give a user lots of a tool's package, free (each usable for the package's days from now)",
  usage: "packages grant <phone|user-id> --package <tool>/<package> [--count N] [--idempotency-key <key>] [--json]",
  examples: ["packages grant 13800138000 --package ocr/starter", "packages grant 42 --package ocr/starter --count 3 --idempotency-key ticket-881 --json"],
  options: { package: true, count: "number", "idempotency-key": true, json: false },
  async run(ctx, { positionals, options }) {
    const key = typeof options["idempotency-key"] === "string" ? storedText(options["idempotency-key"], "idempotency-key") : randomUUID();
    const terms = namedPackage(ctx, options.package);
    const count = options.count === undefined ? 1 : parseCount(options.count, "--count", 1, MAX_GRANT_COUNT);
    const user = await userNamed(ctx, positionals);
    if (!user) return 1;
    const granted = await grantPackage(ctx.db, { userId: user.id, terms, count, at: ctx.clock.now(), idempotencyKey: key });
    if (granted.conflict) {
      const earlier = granted.lots[0]!;
      ctx.err(
        `--idempotency-key "${key}" was used for a grant of ${granted.lots.length} × ${earlier.toolId}/${earlier.packageId ?? earlier.label} to user ${user.id} ` +
          `(${granted.lots.length === 1 ? "lot" : "lots"} ${granted.lots.map((lot) => lot.id).join(", ")}): nothing was given; a different grant needs a key of its own`,
      );
      return 1;
    }
    printLots(ctx, granted.lots, options.json === true);
    if (options.json !== true) {
      ctx.err(granted.replayed ? `already granted with this --idempotency-key: nothing new was given` : `granted ${granted.lots.length} × ${terms.name} (${counted(terms.units, "unit")} of ${terms.toolId}) to user ${user.id}`);
    }
    return 0;
  },
};

export const packagesListCommand: CliCommand = {
  name: "packages list",
  summary: "a user's lots: free quotas, packages bought and granted, with units left and expiry",
  usage: "packages list <phone|user-id> [--json]",
  examples: ["packages list 42", "packages list 13800138000 --json"],
  options: { json: false },
  async run(ctx, { positionals, options }) {
    const user = await userNamed(ctx, positionals);
    if (!user) return 1;
    printLots(ctx, await userLots(ctx.db, user.id), options.json === true, `user ${user.id} has no lots: no free quota used, no package bought or granted`);
    return 0;
  },
};

const REFUSALS = {
  unknown: "there is no lot with this id",
  not_bought: "only a bought package is refunded: a free quota or a grant cost nothing",
  refunded: "this lot was refunded before",
  empty: "this lot has no units left to refund",
  held: "calls of this tool still in flight hold units from the user's lots; refund it once they have ended (a call's hold ends with the call)",
} as const;

export const packagesRefundCommand: CliCommand = {
  name: "packages refund",
  summary: "give back to the balance, once, the price of a bought lot's unused units (pro rata); the lot is emptied",
  usage: 'packages refund <lot-id> --reason "…"',
  examples: ['packages refund 17 --reason "ticket 881: tool retired"'],
  options: { reason: true },
  async run(ctx, { positionals, options }) {
    const id = oneId(positionals, "lot id", "packages list shows them");
    const reason = requiredReason(options.reason, "the user sees it as the refund's reference");
    const refund = await refundLot(ctx.db, { lotId: id, reason, at: ctx.clock.now() });
    if (!refund.ok) {
      ctx.err(`lot ${id}: ${REFUSALS[refund.reason]}; nothing was refunded`);
      return 1;
    }
    ctx.out(`refunded ${formatMoney(refund.refunded)} for ${counted(refund.units, "unused unit")} of lot ${id}; balance now ${formatMoney(refund.balance)}`);
    return 0;
  },
};
