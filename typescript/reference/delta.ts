/**
 * The reference protocol's binding of the delta halves (`docs/spec/delta.md`): its `delta_plan`
 * (kind 9) and `delta_ack` (kind 10) frames and PlanFlags, from `spec/protocol/delta.wire`.
 */

import {
  PlanFlags,
  decodeDeltaAck,
  decodeDeltaPlan,
  encodeDeltaAck,
  encodeDeltaPlan,
} from "../protocol.js";
import type { DeltaSchema } from "../runtime/sessions/delta.js";

/** The reference protocol's delta frames. */
export const REFERENCE_DELTA: DeltaSchema = {
  planFrame: "delta_plan",
  ackFrame: "delta_ack",
  fullBaseline: PlanFlags.FULL_BASELINE,
  baseline: PlanFlags.BASELINE,
  decodePlan: decodeDeltaPlan,
  encodePlan: encodeDeltaPlan,
  decodeAck: decodeDeltaAck,
  encodeAck: encodeDeltaAck,
};
