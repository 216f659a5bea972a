// Loads the plugin packages under test. The Python side names them at start
// (DSH_BRIDGE_PACKAGES, a JSON object {role: package name}); they are imported
// from the bridge folder's node_modules, so a package the kit installed from a
// folder, a tarball or the registry is found the same way. Nothing here
// throws: a package that cannot be used is reported in PACKAGES and the
// Python side turns that into one clear error before any test runs.
import { readFileSync, readdirSync, realpathSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { READS_STACK } from './stack.mjs'

const BRIDGE_DIR = dirname(dirname(fileURLToPath(import.meta.url)))

/** Driver plugin roles a package may fill, and the companion each may have. */
const ROLES = { schedule: 'schedule-invariant', 'time-context': 'time-context-invariant' }

/** What a DSH plugin package must export (quoted in the error for anything else). */
export const EXPECTED_SHAPE =
  'a Cordis plugin as the package main export: named exports `apply(ctx, config)` ' +
  '(plus optional `name`, `inject`, `Config`), or a default export that is such an ' +
  'object or a plugin function/class; optionally the same shape at `<package>/invariant`'

/** The Cordis plugin `namespace` holds, or undefined. */
function pluginOf(namespace) {
  if (typeof namespace.apply === 'function') return namespace
  const fallback = namespace.default
  if (typeof fallback === 'function') return fallback
  if (fallback !== null && typeof fallback === 'object' && typeof fallback.apply === 'function') {
    return fallback
  }
  return undefined
}

/**
 * The module's export shape as a Cordis loader reads it (the driver's
 * export_shape): where the plugin is (named `apply`, or the default export),
 * and the `name`, `inject` and `Config` it declares.
 */
function shapeOf(namespace) {
  const plugin = pluginOf(namespace)
  let form = 'none'
  if (plugin === namespace) form = 'named-apply'
  else if (typeof plugin === 'function') form = 'default-function'
  else if (plugin !== undefined) form = 'default-object'
  const inject = plugin?.inject
  return {
    form,
    name: typeof plugin?.name === 'string' && form !== 'default-function' ? plugin.name : null,
    inject: Array.isArray(inject) ? [...inject] : inject !== null && typeof inject === 'object' ? Object.keys(inject) : [],
    has_config: plugin?.Config !== undefined,
    exports: Object.keys(namespace).sort(),
  }
}

function describeExports(namespace) {
  const names = Object.keys(namespace)
  if (names.length === 0) return 'a module with no exports'
  const shown = names.slice(0, 12).map((key) => `${key} (${typeof namespace[key]})`)
  const more = names.length > shown.length ? `, and ${names.length - shown.length} more` : ''
  return `exports ${shown.join(', ')}${more}`
}

function message(error) {
  return error instanceof Error ? error.message : String(error)
}

function versionOf(name) {
  try {
    return JSON.parse(readFileSync(join(BRIDGE_DIR, 'node_modules', name, 'package.json'), 'utf8')).version
  } catch {
    return null
  }
}

const SCRIPT = /\.[cm]?js$/

/** Whether any script under `root` (a package's folder, its own node_modules
 *  too) can read a stack (lib/stack.mjs); a folder that cannot be read counts as one that can. */
export function readsStack(root) {
  const seen = new Set()
  const scan = (folder) => {
    const real = realpathSync(folder)
    if (seen.has(real)) return false
    seen.add(real)
    for (const entry of readdirSync(real, { withFileTypes: true })) {
      const path = join(real, entry.name)
      const directory = entry.isDirectory() || (entry.isSymbolicLink() && statSync(path).isDirectory())
      if (directory ? scan(path) : SCRIPT.test(entry.name) && READS_STACK.test(readFileSync(path, 'utf8'))) {
        return true
      }
    }
    return false
  }
  try {
    return scan(root)
  } catch {
    return true
  }
}

/** True when importing `specifier` failed only because that subpath does not exist. */
function isMissingSubpath(error, specifier) {
  if (error?.code === 'ERR_PACKAGE_PATH_NOT_EXPORTED') return true
  // (not a dependency of the companion that is missing: that names its own file)
  return error?.code === 'ERR_MODULE_NOT_FOUND' && message(error).includes(`${specifier}'`)
}

/**
 * Import every package named in `spec` (JSON text; missing means none).
 * Returns {PLUGINS: {driver name: plugin}, PACKAGES: {role: report}, SHAPES:
 * {driver name: export shape}, STACK_READERS: [package name]} where a
 * report is {package, version, invariant} or {package, version, problem,
 * expected?, found?}.
 */
export async function loadPluginPackages(spec) {
  const PLUGINS = {}
  const PACKAGES = {}
  const SHAPES = {}
  const STACK_READERS = []
  let requested = {}
  try {
    requested = spec ? JSON.parse(spec) : {}
  } catch (error) {
    PACKAGES._ = { package: null, version: null, problem: `DSH_BRIDGE_PACKAGES is not JSON: ${message(error)}` }
    return { PLUGINS, PACKAGES, SHAPES, STACK_READERS }
  }
  for (const [role, name] of Object.entries(requested)) {
    const report = { package: name, version: versionOf(name) }
    PACKAGES[role] = report
    if (!(role in ROLES)) {
      report.problem = `unknown role ${JSON.stringify(role)}; roles: ${Object.keys(ROLES).join(', ')}`
      continue
    }
    let namespace
    try {
      namespace = await import(name)
    } catch (error) {
      report.problem = `cannot be imported: ${message(error)}`
      continue
    }
    const plugin = pluginOf(namespace)
    if (plugin === undefined) {
      Object.assign(report, {
        problem: 'is not a DSH plugin',
        expected: EXPECTED_SHAPE,
        found: describeExports(namespace),
      })
      continue
    }
    PLUGINS[role] = plugin
    SHAPES[role] = shapeOf(namespace)
    if (readsStack(join(BRIDGE_DIR, 'node_modules', name))) STACK_READERS.push(name)
    const companion = `${name}/invariant`
    report.invariant = false
    try {
      const invariant = pluginOf(await import(companion))
      if (invariant === undefined) {
        Object.assign(report, {
          problem: `has an ./invariant export that is not a Cordis plugin`,
          expected: EXPECTED_SHAPE,
          found: describeExports(await import(companion)),
        })
        continue
      }
      PLUGINS[ROLES[role]] = invariant
      SHAPES[ROLES[role]] = shapeOf(await import(companion))
      report.invariant = true
    } catch (error) {
      if (!isMissingSubpath(error, companion)) report.problem = `${companion} cannot be imported: ${message(error)}`
    }
  }
  return { PLUGINS, PACKAGES, SHAPES, STACK_READERS }
}
