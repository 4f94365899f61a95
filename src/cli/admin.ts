// `npm run admin -- ...`: the operator CLI (admin-run.ts runs the command). A command prints one
// JSON object on its last line of stdout and exits 0; on error, a message on stderr and exit 1.
// Help goes to stdout, exit 0.
import { adminCommand, adminErrorMessage } from "./admin-run.ts";

adminCommand(process.argv.slice(2), process.env).then(
  (output) => console.log(output),
  (error: unknown) => {
    console.error(adminErrorMessage(error));
    process.exit(1);
  },
);
