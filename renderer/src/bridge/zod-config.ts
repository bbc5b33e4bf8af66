/**
 * Turns off zod's JIT before any schema exists. zod compiles object parsers with `new Function`
 * and probes for it once with `new Function('')` when the first object schema is built; the page's
 * CSP forbids eval, so that probe is a CSP violation (caught by zod, but reported by the browser
 * on every start). zod reads this setting when a schema is constructed, so this module must be
 * evaluated before protocol/contract: it is the first import of the bridge, and the entry imports
 * the bridge before any runtime use of the contract.
 */
import { z } from 'zod'

z.config({ jitless: true })
