// The generated TypeScript codec of the reference protocol as a testee: conformance/PROTOCOL.md
// over standard input and output, so that `ackwire conform` checks it through the same door as
// every other implementation.
//
// Its frames are served by the testee `ackwire gen --lang ts --testee` writes for any spec
// (src/gen/testee.ts, by build.sh); what is the reference protocol's own, the session halves of
// src/sessions.ts, is given to it here. Run `./build.sh`, then `node dist/testee.js`.

import { serve } from "./gen/testee.js";
import { SESSIONS } from "./sessions.js";

serve(SESSIONS);
