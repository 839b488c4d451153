import { describe, expect, it } from "vitest";
import type { Message } from "../../contracts/generated/message.js";
import type { SearchHit } from "../../contracts/search.js";
import { HistorySearchIndex } from "../../modules/search/history-search-index.js";
import { recallQuery } from "../../modules/search/recall-query.js";
import {
  ANSWER_TYPE_WEIGHT,
  answerTypeOf,
  asksForCurrent,
  holdsAnswerType,
  poolSize,
  QUESTION_WEIGHT,
  rankForRecall,
  REVISION_WEIGHT,
  revisesEarlier,
  TOOL_OUTPUT_WEIGHT,
} from "../../modules/search/recall-ranking.js";

let seq = 0;
function hit(message: Message, score: number, terms: string[] = []): SearchHit {
  const index = seq++;
  return { id: `h${index}`, index, score, message, terms };
}
const user = (content: string): Message => ({ role: "user", content });
const assistant = (content: string): Message => ({ role: "assistant", content });
const order = (ranked: ReturnType<typeof rankForRecall>) => ranked.map((r) => r.hit.id);

describe("recall ranking", () => {
  describe("answer types", () => {
    it("who → person, when / day / date → date or time, how many / size / limit → number, else none", () => {
      expect(answerTypeOf("Who is my boss over in payments?")).toBe("person");
      expect(answerTypeOf("Whose team owns invoicing?")).toBe("person");
      expect(answerTypeOf("When does the checkout go live?")).toBe("datetime");
      expect(answerTypeOf("What's the last day for checkout merges?")).toBe("datetime");
      expect(answerTypeOf("How many nodes are in staging?")).toBe("number");
      expect(answerTypeOf("What's the RAM size on the staging box?")).toBe("number");
      expect(answerTypeOf("Which colleague signed up to check the design doc?")).toBe("person");
      expect(answerTypeOf("What engineer owns the importer?")).toBe("person");
      expect(answerTypeOf("What's the logo colour these days?")).toBeUndefined(); // "days" is not "day"
      expect(answerTypeOf("What is wrong with the importer?")).toBeUndefined();
    });

    it("a choice asked for → decision; what the user wants → preference; a named kind wins over both", () => {
      expect(answerTypeOf("Which queue did we choose for notifications?")).toBe("decision");
      expect(answerTypeOf("What did we end up using for feature flags?")).toBe("decision");
      expect(answerTypeOf("Are feature flags homegrown or did we buy something?")).toBe("decision");
      expect(answerTypeOf("What storage engine is invoicing going to use, did we settle it?")).toBe("decision");
      expect(answerTypeOf("Are we sticking with React Native for the app?")).toBe("decision");
      expect(answerTypeOf("Which dashboard tool won?")).toBe("decision");
      expect(answerTypeOf("What CI system do we use now?")).toBe("decision");
      expect(answerTypeOf("Which engine is the mobile spin-off built on?")).toBe("decision"); // "which" with no other kind: one of several
      expect(answerTypeOf("What queue do payouts run on?")).toBe("decision");
      expect(answerTypeOf("What happened to the importer?")).toBeUndefined();
      expect(answerTypeOf("What uptime did we promise for the public API?")).toBe("number");
      expect(answerTypeOf("What's my style preference for tests in TypeScript?")).toBe("preference");
      expect(answerTypeOf("How should Go code be indented for me?")).toBe("preference");
      expect(answerTypeOf("Any rules from me about commit messages?")).toBe("preference");
      expect(answerTypeOf("What did I say about changes to the legacy billing code?")).toBe("preference");
      expect(answerTypeOf("When did I say the offsite is?")).toBe("datetime");
      // "like"/"rules" without the speaker asks for no preference of theirs.
      expect(answerTypeOf("What rules does the linter enforce?")).not.toBe("preference");
      // The specific kind wins: the day that was picked is a date.
      expect(answerTypeOf("Which day did we pick for the gateway deploy?")).toBe("datetime");
      expect(answerTypeOf("Who did we choose as reviewer?")).toBe("person");
    });

    it("recognises decisions and preferences", () => {
      for (const text of [
        "For notifications we chose Kafka over the alternatives.",
        "We went with MySQL for invoicing after the vote.",
        "Final call on invoicing: Postgres is the database.",
        "Decision: we will run the importer on Go.",
        "We'll use LaunchDarkly rather than building our own.",
        "We're sticking with React Native; no rewrite in Swift.",
        "We switched to Redis streams for the queue.",
        "The vote went to Grafana over Datadog for our dashboards.",
        "We dropped Jenkins and moved CI to GitHub Actions last sprint.",
      ]) {
        expect(holdsAnswerType(text, "decision"), text).toBe(true);
      }
      expect(holdsAnswerType("Please rename the methods in the notifications worker.", "decision")).toBe(false);
      for (const text of ["For TypeScript tests I prefer table-driven cases.", "In Go files use tabs, never spaces.", "Go error handling, my preference: wrap errors.", "I like commit subjects short."]) {
        expect(holdsAnswerType(text, "preference"), text).toBe(true);
      }
      expect(holdsAnswerType("I need you to add tests for the Go build.", "preference")).toBe(false);
    });

    it("asking for the current state, and revisions of what was said", () => {
      for (const q of ["When are we doing the orders migration now?", "What's the current slot for the migration?", "What shade did we land on for the logo?", "Remind me of the standup time, it changed a couple of times."]) {
        expect(asksForCurrent(q), q).toBe(true);
      }
      expect(asksForCurrent("When is the orders migration?")).toBe(false);
      for (const text of ["Scratch that, standup is at 10:15 after all.", "Update: the gateway rollout slips to Tuesday.", "Actually let's push the migration to Sunday.", "Change of plan: the migration moves to Thursday.", "On reflection the logo should be navy."]) {
        expect(revisesEarlier(text), text).toBe(true);
      }
      expect(revisesEarlier("We dropped Jenkins and moved CI to GitHub Actions.")).toBe(true);
      // A request is not a revision: "update the README", "Okay, now …"; nor is fixing code ("replaced the loop").
      for (const text of ["Please update the README section on the gateway.", "Okay, now rename the methods in the logo assets.", "We'll do the orders migration Friday evening.", "I replaced the loop with a batch call."]) {
        expect(revisesEarlier(text), text).toBe(false);
      }
    });

    it("the first asked wins: 'who … when' asks for a person", () => {
      expect(answerTypeOf("Who said when the freeze starts?")).toBe("person");
      expect(answerTypeOf("When did we say who reviews it?")).toBe("datetime");
    });

    it("recognises names, dates and times, numbers", () => {
      expect(holdsAnswerType("Quick bit of context: Priya Raman manages payments.", "person")).toBe(true);
      expect(holdsAnswerType("ask @priya.r about it", "person")).toBe(true);
      expect(holdsAnswerType("The Payments dashboard is slow.", "person")).toBe(false); // "The" is a function word
      expect(holdsAnswerType("nobody owns it", "person")).toBe(false);
      // One capitalised word inside a sentence is a name; opening a sentence it is not taken alone; weekdays and months are not names.
      expect(holdsAnswerType("These days the push service belongs to Dmitri.", "person")).toBe(true);
      expect(holdsAnswerType("ask Priya, she knows", "person")).toBe(true);
      expect(holdsAnswerType("Dmitri owns it.", "person")).toBe(false);
      expect(holdsAnswerType("we ship on Monday, or in March", "person")).toBe(false);
      for (const text of ["launch on 14 March", "kicks off on the 18th of November", "due on the 3rd", "on March 14th", "deploy it Friday", "from 2026-03-14", "at 9:30", "at 3 pm", "due 3/14"]) {
        expect(holdsAnswerType(text, "datetime"), text).toBe(true);
      }
      expect(holdsAnswerType("it was slow yesterday", "datetime")).toBe(false);
      expect(holdsAnswerType("64 GB of memory", "number")).toBe(true);
      expect(holdsAnswerType("plenty of memory", "number")).toBe(false);
    });
  });

  it("pool size: at least 80 candidates, 10 per hit kept", () => {
    expect(poolSize(8)).toBe(80);
    expect(poolSize(24)).toBe(240);
  });

  it("tool output is weighted down, but stays a candidate", () => {
    const tool = hit({ role: "tool", tool_call_id: "c1", content: "payments: 3 pods" }, 10);
    const call = hit({ role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "bash", arguments: "{}" } }] }, 9);
    const said = hit(user("payments moved to the new cluster"), 6);
    const ranked = rankForRecall("what happened to payments", [tool, call, said], 3);
    expect(order(ranked)[0]).toBe(said.id);
    expect(ranked.find((r) => r.hit === tool)).toMatchObject({ score: 10 * TOOL_OUTPUT_WEIGHT, notes: [`tool output ×${TOOL_OUTPUT_WEIGHT}`] });
    expect(ranked).toHaveLength(3);
  });

  it("a message holding the asked-for answer type moves up, with a note saying so", () => {
    const request = hit(user("Please document the payments dashboard."), 10);
    const statement = hit(user("By the way, Noor Varga manages the payments team."), 8);
    const ranked = rankForRecall("Who manages payments?", [request, statement], 2);
    expect(order(ranked)).toEqual([statement.id, request.id]);
    expect(ranked[0]).toMatchObject({ score: 8 * ANSWER_TYPE_WEIGHT, notes: [expect.stringContaining("name")] });
  });

  it("a decision or preference statement moves up when the question asks for one", () => {
    const request = hit(user("Can you profile the notifications worker before the release?"), 10);
    const decided = hit(user("For notifications we chose Kafka over the alternatives."), 8);
    expect(order(rankForRecall("Which queue did we pick for notifications?", [request, decided], 2))).toEqual([decided.id, request.id]);
    const task = hit(user("Could you add tests for the Go build?"), 10);
    const likes = hit(user("In Go files I prefer tabs; run gofmt."), 8);
    const ranked = rankForRecall("How do I like Go code indented?", [task, likes], 2);
    expect(order(ranked)).toEqual([likes.id, task.id]);
    expect(ranked[0]).toMatchObject({ score: 8 * ANSWER_TYPE_WEIGHT, notes: [expect.stringContaining("preference")] });
  });

  it("a revision moves up when the question asks for the current state, and only then", () => {
    const first = hit(user("We'll do the orders migration Friday evening."), 10);
    const revised = hit(user("Actually let's push the migration to Sunday morning, ops asked."), 8);
    const now = rankForRecall("When is the orders migration now?", [first, revised], 2);
    expect(now.find((r) => r.hit === revised)).toMatchObject({ score: 8 * ANSWER_TYPE_WEIGHT * REVISION_WEIGHT, notes: [expect.stringContaining("date"), expect.stringContaining("revises")] });
    expect(now.find((r) => r.hit === first)).toMatchObject({ score: 10 * ANSWER_TYPE_WEIGHT });
    expect(order(now)).toEqual([revised.id, first.id]);
    // Not asking for the current state: no revision weight.
    expect(rankForRecall("When is the orders migration?", [first, revised], 2).find((r) => r.hit === revised)).toMatchObject({ score: 8 * ANSWER_TYPE_WEIGHT });
  });

  it("a message that matched only by its own question moves down when the query asks something", () => {
    const earlier = hit(user("Which database did we pick for invoicing in the end?"), 10, ["invoic", "databas"]);
    const answer = hit(user("Invoicing will run on Postgres."), 8, ["invoic"]);
    const ranked = rankForRecall("Which database is invoicing on?", [earlier, answer], 2);
    expect(order(ranked)).toEqual([answer.id, earlier.id]);
    expect(ranked[1]).toMatchObject({ score: 10 * QUESTION_WEIGHT });
    // A query that asks nothing leaves questions alone.
    expect(order(rankForRecall("invoicing database", [earlier, answer], 2))).toEqual([earlier.id, answer.id]);
  });

  it("diversity: near-duplicates give way to a message that differs (maximal marginal relevance)", () => {
    const copies = Array.from({ length: 6 }, (_, i) => hit(user(`Run the payments reconciliation job tests again ${i}`), 10 - i * 0.01));
    const different = hit(user("Dmitri said payments freezes on Friday."), 9);
    const ranked = rankForRecall("payments", [...copies, different], 3);
    expect(order(ranked)).toContain(different.id);
    expect(order(ranked)[0]).toBe(copies[0]!.id);
    // Without near-duplicates the order is the score order.
    const a = hit(user("alpha payments"), 3);
    const b = hit(user("beta ledger"), 2);
    const c = hit(user("gamma refunds"), 1);
    expect(order(rankForRecall("payments", [c, a, b], 3))).toEqual([a.id, b.id, c.id]);
  });

  it("deterministic, never more than asked, nothing for nothing", () => {
    const hits = Array.from({ length: 30 }, (_, i) => hit(user(`message ${i} about topic ${i % 4}`), 30 - (i % 7)));
    expect(order(rankForRecall("topic", hits, 8))).toEqual(order(rankForRecall("topic", hits, 8)));
    expect(rankForRecall("topic", hits, 8)).toHaveLength(8);
    expect(rankForRecall("topic", hits, 0)).toEqual([]);
    expect(rankForRecall("topic", [], 5)).toEqual([]);
  });

  it("over a real index: the statement answering an embedded question beats requests on the same topic", async () => {
    const history: Message[] = [];
    for (let i = 0; i < 20; i++) history.push(user(`Please refactor the payments dashboard module ${i}.`), assistant(`Refactored the payments dashboard module ${i}.`));
    history.splice(30, 0, user("FYI, Ingrid Costa heads up payments and I report to her."));
    for (let i = 0; i < 40; i++) history.push(user(`Next: add tests for the search endpoint ${i}.`), assistant("Done."));
    const index = new HistorySearchIndex(() => history);
    // "payments" is in a third of the messages (pruned as too common were it not the only term that matches).
    const question = recallQuery("Next: add tests for the search endpoint 41. Quick question: who is my boss in payments?").text;
    expect(question).toBe("who is my boss in payments?");
    const pool = await index.search(question, { k: poolSize(8) });
    const top = rankForRecall(question, pool, 8).map((r) => r.hit.index);
    expect(top).toContain(30);
    expect(top.indexOf(30)).toBeLessThan(3);
  });
});
