import { describe, expect, it } from "vitest";
import { matchedByQuestionsOnly, questionClauses, recallQuery } from "../../modules/search/recall-query.js";
import { tokenize } from "../../modules/search/tokenizer.js";

describe("recall query", () => {
  it("a message that is one question is its own query", () => {
    expect(recallQuery("Who owns invoicing now?")).toEqual({ text: "Who owns invoicing now?", from: "message" });
  });

  it("a request around a question: the question clause alone, its lead-in cut off", () => {
    expect(recallQuery("Please fix the retry helper. One more thing: what day is the gateway deploy?")).toEqual({ text: "what day is the gateway deploy?", from: "questions" });
    expect(recallQuery("Clean up the CSV exporter. Before you carry on — if payments goes down, who should I ping?").text).toBe("if payments goes down, who should I ping?");
    expect(recallQuery("Profile the cache layer. Hang on – which queue did we choose?").text).toBe("which queue did we choose?");
  });

  it("keeps every question of a message, in order", () => {
    expect(recallQuery("Refactor the form. Did the migration time change? When is it?").text).toBe("Did the migration time change? When is it?");
  });

  it("a request phrased as a question is not a question, unless it holds a question word", () => {
    expect(questionClauses("Can you profile the search endpoint?")).toEqual([]);
    expect(questionClauses("Please could you split it up?")).toEqual([]);
    expect(recallQuery("Can you profile the search endpoint? It is slow.")).toEqual({ text: "Can you profile the search endpoint? It is slow.", from: "message" });
    expect(questionClauses("Could you tell me who reviewed the design doc?")).toEqual(["Could you tell me who reviewed the design doc?"]);
  });

  it("asking to be reminded is a question without a question mark", () => {
    expect(recallQuery("Let's clean up the error boundary. Unrelated: remind me what shade we landed on for the logo.").text).toBe("remind me what shade we landed on for the logo.");
    expect(questionClauses("Do you remember the staging password")).toEqual(["Do you remember the staging password"]);
  });

  it("a question typed without its question mark is still a question; statements and requests that start alike are not", () => {
    expect(recallQuery("Fix the CSV export. Also, which queue did we pick for notifications").text).toBe("Also, which queue did we pick for notifications");
    for (const q of ["who is on call this week", "what's the staging port", "how many nodes does staging have", "how do I like my PR descriptions", "Which day is the deploy"]) {
      expect(questionClauses(q), q).toEqual([q]);
    }
    for (const s of ["When you get a chance, review the cache layer.", "What I want is a smaller diff.", "Who owns invoicing is not settled.", "How we ship it does not matter!"]) {
      expect(questionClauses(s), s).toEqual([]);
    }
  });

  it("questions inside fenced code are not questions; a hyphen inside a word is not a lead-in", () => {
    expect(questionClauses("Look at this:\n```\nwhy?\n```\nThanks.")).toEqual([]);
    expect(questionClauses("Who is the on-call person?")).toEqual(["Who is the on-call person?"]);
  });

  it("a message without questions is searched whole", () => {
    expect(recallQuery("Fix the flaky test in the checkout form.")).toEqual({ text: "Fix the flaky test in the checkout form.", from: "message" });
    expect(recallQuery("")).toEqual({ text: "", from: "message" });
  });

  describe("matchedByQuestionsOnly", () => {
    const terms = (s: string) => [...new Set(tokenize(s))];
    it("true when only the message's own question holds the matched terms", () => {
      expect(matchedByQuestionsOnly("Refactor the cron. Quick question: which database did we pick for invoicing?", terms("database invoicing"))).toBe(true);
      expect(matchedByQuestionsOnly("Which database did we pick for invoicing in the end?", terms("invoicing"))).toBe(true);
    });
    it("false when the rest of the message says one of them, or the message asks nothing", () => {
      expect(matchedByQuestionsOnly("Invoicing runs on MySQL. Which database did we pick for billing?", terms("database invoicing"))).toBe(false);
      expect(matchedByQuestionsOnly("We went with MySQL for invoicing.", terms("invoicing"))).toBe(false);
      expect(matchedByQuestionsOnly("Which database?", [])).toBe(false);
    });
  });
});
