import { type IdGenerator, timeOrderedIds } from "../../src/shared/ids.ts";

/**
 * An id generator whose first memo ids are `taken` (ids already in use, to make the database refuse
 * them) and then fresh ones; `drawn` records every memo id it handed out.
 */
export function drawingMemoIds(taken: string[]): { ids: IdGenerator; drawn: string[] } {
  const drawn: string[] = [];
  const ids = {
    ...timeOrderedIds,
    newMemoId: () => {
      const memo = taken[drawn.length] ?? timeOrderedIds.newMemoId();
      drawn.push(memo);
      return memo;
    },
  };
  return { ids, drawn };
}
