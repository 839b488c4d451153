import { describePersistentContract } from "./persistent-contract-setup.js";

// The conformance suite on context-persistent, fsync "never" (one file per configuration: see
// context-simple.contract.test.ts).
describePersistentContract("never");
