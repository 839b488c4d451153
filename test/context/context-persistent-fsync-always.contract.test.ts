import { describePersistentContract } from "./persistent-contract-setup.js";

// The conformance suite on context-persistent, fsync "always" (one file per configuration: see
// context-simple.contract.test.ts).
describePersistentContract("always");
