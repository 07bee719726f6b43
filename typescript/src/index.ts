/**
 * The runtime of the TypeScript codecs ackwire generates: checked reads and writes, LEB128
 * varints, zigzag, bit streams for packed bodies (with their bucket codes and smallest-three
 * quaternions), the adaptive binary range coder of coded bodies (range.ts) and the coded values
 * of kind 13's bodies over it (coded.ts), the error taxonomy every ackwire codec shares, and the
 * JSON form of conformance/PROTOCOL.md. None of it depends on a layout; the generated module of
 * a layout imports what it calls from here.
 *
 * ES2020 (`bigint`, `DataView`), no dependencies, nothing of node or of the DOM: the same files
 * run in node and in a browser.
 *
 * @packageDocumentation
 */

export { type BitSet, bitSetNames, bitSetValue } from "./bits.js";
export {
  DecodeError,
  EncodeError,
  type ErrorKind,
  JsonError,
  pathText,
  pathWithin,
  type Segment,
  within,
} from "./errors.js";
export {
  bigExtrapolate,
  codeCodedQuat,
  CODED_FLOOR_BITS,
  type CodedBasis,
  type CodedBasisTicks,
  codedBits,
  type CodedFrameCodec,
  codedBitsValue,
  codedBounded,
  CodedDecoder,
  CodedEncoder,
  CodedIds,
  codedPredicted,
  codedPresence,
  codedProbs,
  codedQuantizeInt,
  codedQuantizeUint,
  codedResidual,
  type CodedSink,
  codedVelocity,
  codedWithin,
  extrapolate,
  f32Bits,
  f32FromBits,
  f64Bits,
  f64FromBits,
  floorLen,
  modelSlots,
  NoBasis,
  readCodedQuat,
  SlotCounts,
} from "./coded.js";
export { type FrameCodec } from "./frame.js";
export {
  bigBucketLen,
  bigUnzigzag,
  bigZigzag,
  bucketLen,
  quantize,
  roundHalfAwayFromZero,
  unzigzag,
  zigzag,
} from "./ints.js";
export {
  fromHex,
  fromJson,
  type JsonScalar,
  type JsonType,
  type JsonValue,
  type RecordJson,
  toHex,
  toJson,
  type UnionJson,
} from "./json.js";
export { bigVarintLen, bytesLen, optBytesLen, sumOf, varintLen } from "./lengths.js";
export {
  Ascending,
  ascending,
  ascendingBucketsLen,
  ascendingVarintsLen,
  ascendingWriter,
  BigAscending,
  bigAscending,
  bigAscendingBucketsLen,
  bigAscendingVarintsLen,
  bigAscendingWriter,
  keyed,
  keyedWriter,
  readList,
  writeList,
} from "./lists.js";
export { fromXyzw, quatRange, type SmallestThree, smallestThreeFault, toXyzw } from "./quat.js";
export {
  ADAPT_SHIFT,
  BitTree,
  MAX_IMPLICIT_ZEROS,
  Prob,
  PROB_BITS,
  RangeDecoder,
  RangeEncoder,
  TREE_BITS,
  TREE_SLOTS,
} from "./range.js";
export { BitReader, Reader } from "./reader.js";
export { BitWriter, Encoder, Writer } from "./writer.js";
