import { spawn } from "node:child_process";
import { tempNameFor } from "../../modules/store-blobs/temp-file-owner.js";

/**
 * The temp file name a crashed upload of `recordName` leaves: named for this host and boot, by a
 * process that has ended (its pid no longer runs) — what FileBlobStore.connect() removes.
 */
export async function crashLeftoverName(recordName: string): Promise<string> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await new Promise((resolve) => child.on("exit", resolve));
  return tempNameFor(recordName).replace(/-[0-9]+-([0-9a-f]{12})$/, `-${child.pid!}-$1`);
}
