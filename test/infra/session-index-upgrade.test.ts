/**
 * Upgrading a stack deployed with the previous session indexes (every attribute projected) to the
 * keys-only ones: CloudFormation creates or deletes one global secondary index per update and cannot
 * change an index's projection in place, so `tollgate:sessionIndexUpgrade` 1, 2, 3 and then no value
 * each change exactly one index, on the same table, and the functions read the previous indexes until
 * both new ones exist.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { functions as catalog } from "../../functions/catalog.js";
import { env } from "../../functions/shared/env.js";
import { mainTable, previousSessionIndexes } from "../../functions/shared/tables.js";
import { asArray, functionNames, logicalId, removeStubSourceRoot, statementsOf, type Synth, synth } from "./helpers.js";

const steps: (string | undefined)[] = ["1", "2", "3", undefined];
let synths: Synth[];
beforeAll(() => {
  synths = steps.map((step) => synth(step ? { "tollgate:sessionIndexUpgrade": step } : {}));
}, 120_000);
afterAll(removeStubSourceRoot);

const tableOf = (s: Synth) => Object.entries(s.json.Resources).find(([, r]) => r.Type === "AWS::DynamoDB::Table")!;
const indexesOf = (s: Synth): { IndexName: string; Projection: { ProjectionType: string } }[] => tableOf(s)[1].Properties.GlobalSecondaryIndexes;
const names = (s: Synth) => indexesOf(s).map((ix) => ix.IndexName);

/** The indexes of a stack deployed before the keys-only ones. */
const before: string[] = [previousSessionIndexes.sessionsByTenant.name, previousSessionIndexes.pendingSessions.name, mainTable.indexes.history.name];
const queryingFunctions = functionNames.filter((name) => (catalog[name].table as readonly string[]).includes("Query"));

describe("the session indexes' upgrade", () => {
  it("changes exactly one index per step, on the same table, ending at the table as defined", () => {
    const sequence = [before, ...synths.map(names)];
    for (let i = 1; i < sequence.length; i++) {
      const added = sequence[i].filter((n) => !sequence[i - 1].includes(n));
      const removed = sequence[i - 1].filter((n) => !sequence[i].includes(n));
      expect(added.length + removed.length, `step ${steps[i - 1] ?? "none"}: ${added} added, ${removed} removed`).toBe(1);
    }
    expect(names(synths.at(-1)!).sort()).toEqual(
      Object.values(mainTable.indexes)
        .map((ix) => ix.name)
        .sort(),
    );
    for (const s of synths) expect(tableOf(s)[0]).toBe(logicalId(s.stack, s.stack.table.node.defaultChild));
    // An index kept from before keeps its projection (a change would be refused by CloudFormation).
    for (const s of synths) {
      for (const ix of indexesOf(s).filter((x) => before.includes(x.IndexName))) expect(ix.Projection.ProjectionType).toBe("ALL");
    }
  });

  it("has the functions read the previous indexes until both new ones exist, and grants Query on the indexes of that step", () => {
    synths.forEach((s, i) => {
      const readsPrevious = i < 2;
      for (const name of functionNames) {
        const vars = s.json.Resources[s.fnId(name)].Properties.Environment.Variables;
        expect(vars[env.sessionIndexes], `${name} at step ${steps[i]}`).toBe(readsPrevious && queryingFunctions.includes(name) ? "previous" : undefined);
      }
      const read = readsPrevious ? previousSessionIndexes : mainTable.indexes;
      expect(names(s)).toEqual(expect.arrayContaining([read.sessionsByTenant.name, read.pendingSessions.name]));
      for (const name of queryingFunctions) {
        const indexGrant = statementsOf(s.json, s.roleId(name)).find((st) => JSON.stringify(st.Resource).includes("/index/"))!;
        expect(
          asArray(indexGrant.Resource)
            .map((r) => JSON.stringify(r).match(/\/index\/([a-z-]+)/)![1])
            .sort(),
        ).toEqual(names(s).sort());
      }
    });
  });

  it("refuses a step that is not 1, 2 or 3", () => {
    expect(() => synth({ "tollgate:sessionIndexUpgrade": "4" })).toThrow("tollgate:sessionIndexUpgrade");
  });
});
