/**
 * Subagents through `bridle serve` and the scripted model: the parent's reply calls `task`, the
 * child (held until the test lets it answer) says what the README is, the parent sums up. The
 * child hangs under its parent in the session tree marked "subagent" and opens while it runs
 * and after; the parent's chat shows the call as a subagent card whose "Open subagent" opens the
 * child; the parent's Gantt draws the call's bar labelled with the subagent's description, and
 * the bar's detail opens the child too. A child's approval question shows in the parent's chat,
 * named with the subagent, and a denial given there reaches the child's log. A child that hits
 * its step limit fails its card with the reason and what it wrote. Screens:
 * test-results/subagents-*.png (both themes, two sizes), with axe checks of the chat.
 */
import AxeBuilder from '@axe-core/playwright'
import { expect, test } from '@playwright/test'
import type { Page } from '@playwright/test'
import { startApp } from './app-fixture'
import type { AppUnderTest } from './app-fixture'
import { unexpectedErrors } from './console-errors'
import { openInspector } from './shell-nav'
import { shootEachWay } from './shots'

const DESCRIPTION = 'Survey the readme'
const PROMPT = 'Read README.md and say in one line what it is.'

let app: AppUnderTest
let releaseChild: () => void = () => undefined

const taskCall = (description: string, prompt: string) => ({
  toolCall: { name: 'task', args: JSON.stringify({ description, prompt }) },
})

test.afterEach(async () => {
  releaseChild()
  await app.stop()
})

async function axeViolations(page: Page, selector: string): Promise<string[]> {
  const result = await new AxeBuilder({ page }).include(selector).analyze()
  return result.violations.map(
    (v) => `${v.id} ${v.impact}: ${v.nodes.map((n) => n.html.slice(0, 120)).join(' | ')}`,
  )
}

test('the child is in the tree under its parent, the chat card opens it, the Gantt shows its span', async ({
  page,
}) => {
  const childGate = new Promise<void>((resolve) => {
    releaseChild = resolve
  })
  app = await startApp({
    script: [
      // The parent's first step: one `task` call.
      { steps: [{ text: 'Asking a subagent.' }, taskCall(DESCRIPTION, PROMPT)] },
      // The child's only step, held so the test sees it running.
      { steps: [{ wait: childGate }, { text: 'The README is a demo project.' }] },
      // The parent's answer, with the child's in its history.
      { steps: [{ text: 'The subagent says: the README is a demo project.' }] },
    ],
  })
  const consoleErrors: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text())
  })
  await page.setViewportSize({ width: 1440, height: 900 })
  await page.goto(app.url)
  const chat = page.getByRole('main', { name: 'Chat' })
  const sidebar = page.getByRole('complementary', { name: 'Sessions' })
  const tree = sidebar.getByRole('tree', { name: 'Session tree' })

  await page.getByRole('textbox', { name: 'Message' }).fill('What is in this project?')
  await page.getByRole('button', { name: 'Send' }).click()

  // The card, while the child runs: its description, running, and a way to the child.
  const card = chat.getByRole('article', { name: `Subagent ${DESCRIPTION}: running` })
  await expect(card).toBeVisible()
  const open = card.getByRole('button', { name: 'Open subagent' })
  await expect(open).toBeVisible()
  const childId = (await card.getAttribute('data-subagent-id')) ?? ''
  expect(childId).not.toBe('')
  // The prompt is folded until asked for.
  await expect(card.getByText(PROMPT)).toHaveCount(0)
  await card.getByRole('button', { name: 'Show prompt' }).click()
  await expect(card.getByLabel('Prompt given to the subagent')).toHaveText(PROMPT)

  // The tree: the child under its parent, marked a subagent, not a fork.
  const parentItem = tree.getByRole('treeitem', { name: /^What is in this project/ })
  await expect(parentItem).toHaveAttribute('aria-expanded', 'true')
  const group = tree.getByRole('group', { name: /^Subagents of / })
  const childItem = group.getByRole('treeitem')
  await expect(childItem).toHaveCount(1)
  await expect(childItem).toHaveAccessibleName(/subagent/)
  await expect(childItem).not.toHaveAccessibleName(/fork at/)
  await expect(childItem).toHaveAttribute('aria-level', '2')
  await expect(childItem).toHaveAttribute('data-session-id', childId)
  expect(await axeViolations(page, 'aside[aria-label="Sessions"]')).toEqual([])
  await shootEachWay(page, (size, theme) => `test-results/subagents-running-${size}-${theme}.png`, {
    check: async (where) => {
      expect(await axeViolations(page, 'main[aria-label="Chat"]'), where).toEqual([])
    },
  })

  // Opened while it runs: its own chat, the prompt as its message, the way back to its parent.
  await open.click()
  await expect(childItem).toHaveAttribute('aria-selected', 'true')
  await expect(chat.getByRole('note', { name: 'Subagent origin' })).toBeVisible()
  await expect(chat).toContainText(PROMPT)
  releaseChild()
  await expect(chat).toContainText('The README is a demo project.')

  // Back in the parent: the card is done, with the child's answer; its link still opens it.
  await chat.getByRole('button', { name: 'Open parent' }).click()
  await expect(chat).toContainText('The subagent says: the README is a demo project.')
  const done = chat.getByRole('article', { name: `Subagent ${DESCRIPTION}: done` })
  await expect(done).toBeVisible()
  await expect(done.getByLabel("The subagent's answer")).toContainText(
    'The README is a demo project.',
  )
  expect(await axeViolations(page, `[data-subagent-id="${childId}"]`)).toEqual([])

  // The Gantt: the call's bar is the subagent's span, labelled with its description.
  const timeline = await openInspector(page, 'Timeline')
  await timeline.getByRole('tab', { name: 'Gantt' }).click()
  const bar = timeline.locator(`[data-testid="gantt-bar"][data-subagent-id="${childId}"]`)
  await expect(bar).toHaveAttribute('data-label', DESCRIPTION)
  await expect(bar).toHaveAccessibleName(new RegExp(`^subagent ${DESCRIPTION} step 1`))
  const span =
    Number(await bar.getAttribute('data-end')) - Number(await bar.getAttribute('data-start'))
  expect(span).toBeGreaterThanOrEqual(0)
  await bar.click()
  await shootEachWay(page, (size, theme) => `test-results/subagents-done-${size}-${theme}.png`, {
    // A resize across the narrow width moves the inspector into a sheet (or back): open its Gantt.
    prepare: async () => {
      const panel = await openInspector(page, 'Timeline')
      await panel.getByRole('tab', { name: 'Gantt' }).click()
      await expect(panel.locator(`[data-subagent-id="${childId}"]`)).toBeVisible()
    },
  })
  const detail = page.getByRole('region', { name: 'Event detail' })
  await detail.getByRole('button', { name: 'Open subagent' }).click()
  await expect(childItem).toHaveAttribute('aria-selected', 'true')
  await expect(chat.getByRole('note', { name: 'Subagent origin' })).toBeVisible()

  expect(unexpectedErrors(consoleErrors)).toEqual([])
})

test("a subagent's question shows in its parent's chat, named with it, and is answered there", async ({
  page,
}) => {
  app = await startApp({
    script: [
      { steps: [taskCall('Reset the tree', 'Reset the work tree to HEAD.')] },
      // The child asks for a command the default mode always asks about.
      {
        steps: [
          { toolCall: { id: 'call_0', name: 'bash', args: '{"command":"git reset --hard"}' } },
        ],
      },
      { steps: [{ text: 'I was not allowed to reset.' }] },
      { steps: [{ text: 'The subagent could not reset.' }] },
    ],
  })
  await page.setViewportSize({ width: 1440, height: 900 })
  await page.goto(app.url)
  const chat = page.getByRole('main', { name: 'Chat' })
  await page.getByRole('textbox', { name: 'Message' }).fill('Reset everything')
  await page.getByRole('button', { name: 'Send' }).click()

  const card = chat.getByRole('article', { name: 'Subagent Reset the tree: running' })
  await expect(card).toBeVisible()
  const prompt = chat.getByRole('group', { name: 'Approve bash for the subagent “Reset the tree”' })
  await expect(prompt).toContainText('Asked by the subagent “Reset the tree”')
  await expect(prompt).toContainText('git reset --hard')
  await shootEachWay(
    page,
    (size, theme) => `test-results/subagents-approval-${size}-${theme}.png`,
    {
      prepare: () => prompt.scrollIntoViewIfNeeded(),
      check: async (where) => {
        expect(await axeViolations(page, 'main[aria-label="Chat"]'), where).toEqual([])
      },
    },
  )
  await prompt.getByRole('button', { name: 'Deny…' }).click()
  await prompt.getByRole('textbox', { name: 'Reason for denying' }).fill('keep my changes')
  await prompt.getByRole('button', { name: 'Deny', exact: true }).click()
  // Answered in the child's session: the question leaves the parent, the turns go on.
  await expect(prompt).toHaveCount(0)
  await expect(chat).toContainText('The subagent could not reset.')
  const done = chat.getByRole('article', { name: 'Subagent Reset the tree: done' })
  await expect(done.getByLabel("The subagent's answer")).toContainText(
    'I was not allowed to reset.',
  )
  // The child's log holds the decision.
  await done.getByRole('button', { name: 'Open subagent' }).click()
  const denied = chat.locator('[data-call-id="call_0"]')
  await expect(denied).toHaveAttribute('aria-label', 'Tool bash: denied')
  await expect(denied).toContainText('keep my changes')
})

test('a child that hits its step limit fails its card with the reason and what it wrote', async ({
  page,
}) => {
  app = await startApp({
    config: { subagents: { maxSteps: 1 } },
    script: [
      { steps: [taskCall('Count the files', 'How many files are there?')] },
      // One step allowed: the child's call runs, and the limit ends it before it answers.
      {
        steps: [
          { text: 'Looking at the files first.' },
          { toolCall: { name: 'list', args: '{"path":"."}' } },
        ],
      },
      { steps: [{ text: 'The subagent ran out of steps.' }] },
    ],
  })
  await page.setViewportSize({ width: 1440, height: 900 })
  await page.goto(app.url)
  const chat = page.getByRole('main', { name: 'Chat' })
  await page.getByRole('textbox', { name: 'Message' }).fill('Count them')
  await page.getByRole('button', { name: 'Send' }).click()
  await expect(chat).toContainText('The subagent ran out of steps.')
  const card = chat.getByRole('article', { name: 'Subagent Count the files: failed' })
  await expect(card).toContainText('The subagent did not finish its task.')
  await expect(card).toContainText('reached its step limit')
  await expect(card).toContainText('Looking at the files first.')
  await shootEachWay(page, (size, theme) => `test-results/subagents-failed-${size}-${theme}.png`, {
    prepare: () => card.scrollIntoViewIfNeeded(),
    check: async (where) => {
      expect(await axeViolations(page, 'main[aria-label="Chat"]'), where).toEqual([])
    },
  })
  await card.getByRole('button', { name: 'Open subagent' }).click()
  await expect(chat.getByRole('note', { name: 'Subagent origin' })).toBeVisible()
  await expect(chat).toContainText('Looking at the files first.')
})
