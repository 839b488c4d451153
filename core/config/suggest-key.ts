// The "did you mean" of every validation error lives with the validators in contracts (one
// translator from validation issues to errors); core re-exports it for its CLI and config.
export { suggestKey, didYouMean, editDistance } from "@amplifier-ts/contracts";
