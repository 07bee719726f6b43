//
// Runs the testee of protocol.ts (testee.ts) with no session half: what ./testee starts.

import { serve } from "./testee.js";

serve();
