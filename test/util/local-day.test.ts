import { expect, test } from "bun:test";
import { localDay } from "../../src/util/local-day.ts";

/** What the Date methods say, for comparison. */
function byDate(now: Date): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

test("localDay agrees with the Date methods, around local midnight and across the year", () => {
  const instants = [
    new Date(2025, 0, 2, 0, 0, 1),
    new Date(2025, 0, 1, 23, 59, 59),
    new Date(2024, 1, 29, 12, 0, 0),
    new Date(2030, 5, 30, 23, 30, 0),
    new Date(1999, 11, 31, 0, 30, 0),
    new Date(),
  ];
  for (let day = 0; day < 366; day += 7) instants.push(new Date(Date.UTC(2026, 0, 1 + day, (day * 5) % 24)));
  for (const now of instants) expect(localDay(now)).toBe(byDate(now));
});
