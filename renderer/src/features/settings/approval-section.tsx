import { useState } from 'react'
import type { FieldError, SettingsView } from '../../../../protocol/contract'
import { describeRule, ruleTargetLines, withApprovalMode, withoutApprovalRule } from './config-edit'
import type { ApprovalMode } from './config-edit'
import { placeFieldErrors, ruleTargets } from './field-errors'
import { FormErrors } from './field'
import { ModeChoices } from './mode-choices'
import type { SaveSettings } from './use-settings'
import { APPROVAL_MODES } from './words'

export interface ApprovalSectionProps {
  readonly view: SettingsView
  readonly save: SaveSettings
}

/** The approval mode (saved as soon as it is picked) and the remembered rules. */
export function ApprovalSection({ view, save }: ApprovalSectionProps) {
  const [message, setMessage] = useState<string | undefined>(undefined)
  const [unplaced, setUnplaced] = useState<readonly FieldError[]>([])
  const [ruleErrors, setRuleErrors] = useState<Partial<Record<string, string>>>({})
  // Shown checked at once; the saved mode takes over when the save returns (or fails).
  const [pending, setPending] = useState<ApprovalMode | undefined>(undefined)
  const rules = view.config.approvalRules
  const mode = pending ?? view.config.approval

  const pick = async (next: ApprovalMode) => {
    setPending(next)
    await apply((c) => withApprovalMode(c, next))
    setPending(undefined)
  }

  const apply = async (edit: Parameters<SaveSettings>[0]) => {
    const outcome = await save(edit)
    if (outcome.ok) {
      setMessage(undefined)
      setUnplaced([])
      setRuleErrors({})
      return
    }
    const placed = placeFieldErrors(outcome.error.fields ?? [], {
      ...ruleTargets(rules.length),
      approval: 'mode',
    })
    setRuleErrors(placed.byField)
    setUnplaced(placed.unplaced)
    setMessage(
      placed.byField['mode'] ??
        (outcome.error.fields === undefined ? outcome.error.message : undefined),
    )
  }

  return (
    <section className="settings-section" aria-labelledby="settings-approval">
      <h2 id="settings-approval">Approvals</h2>
      <ModeChoices
        legend="Approval mode"
        choices={APPROVAL_MODES}
        value={mode}
        onPick={(choice) => void pick(choice)}
      />
      <FormErrors message={message} fields={unplaced} />
      <h3>Remembered rules</h3>
      {rules.length === 0 ? (
        <p className="muted">
          None yet. Answering “always” to an approval prompt remembers the command here.
        </p>
      ) : (
        <table className="settings-table" aria-label="Remembered rules">
          <thead>
            <tr>
              <th scope="col">Tool</th>
              <th scope="col">Command</th>
              <th scope="col">Effect</th>
              <th scope="col">Project</th>
              <th scope="col">
                <span className="visually-hidden">Delete</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rules.map((rule, index) => {
              const error = ruleErrors[`rule-${index}`]
              return (
                <tr
                  key={`${index}:${rule.tool}:${rule.pattern ?? rule.prefix ?? ''}:${rule.project ?? ''}`}
                >
                  <td>{rule.tool}</td>
                  <td>
                    <RuleTarget lines={ruleTargetLines(rule)} />
                  </td>
                  <td className={rule.effect === 'deny' ? 'settings-deny' : undefined}>
                    {rule.effect}
                  </td>
                  <td className="settings-project" title={rule.project}>
                    {rule.project ?? <span className="muted">all projects</span>}
                    {error === undefined ? null : (
                      <span className="settings-field-error" role="alert">
                        {error}
                      </span>
                    )}
                  </td>
                  <td>
                    <button
                      type="button"
                      className="link danger"
                      aria-label={`Delete rule: ${describeRule(rule)}`}
                      onClick={() => void apply((c) => withoutApprovalRule(c, index))}
                    >
                      Delete
                    </button>
                  </td>
                </tr>
              )
            })}
          </tbody>
        </table>
      )}
    </section>
  )
}

/** What a rule matches: any call of its tool, one pattern or path, or one line per command. */
function RuleTarget({ lines }: { readonly lines: readonly string[] }) {
  if (lines.length === 0) return <span className="muted">any</span>
  if (lines.length === 1) return <code>{lines[0]}</code>
  return (
    <ul className="settings-rule-lines">
      {lines.map((line, index) => (
        <li key={index}>
          <code>{line}</code>
        </li>
      ))}
    </ul>
  )
}
