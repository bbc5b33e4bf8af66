export {
  makeTokenCounter,
  MESSAGE_OVERHEAD,
  REPLY_OVERHEAD,
  textTokenizerFor,
  tokenCounter,
  TOOL_CALL_OVERHEAD,
  TOOLS_OVERHEAD,
} from './counter.js'
export type { MessageCount, TextTokenizer, TokenCounter, TokenCounterOptions } from './counter.js'
export { Calibration, CALIBRATION_MAX, CALIBRATION_MIN } from './calibration.js'
export type { CalibrationJSON } from './calibration.js'
export { baseModelName, encodingForModel, loadEncoding } from './encodings.js'
export type { EncodingName } from './encodings.js'
export { estimateTokens } from './estimate.js'
export { imageSize, imageTokens, UNKNOWN_IMAGE_TOKENS } from './images.js'
export type { ImageSize } from './images.js'
export { calibrationFromLog, sessionTokens } from './from-log.js'
export type { SessionTokens } from './from-log.js'
