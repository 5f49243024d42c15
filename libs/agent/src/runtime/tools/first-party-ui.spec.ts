import type { HtmlUiResource } from '@fed/contracts';
import { AskUserTool } from './ask-user.tool';
import { escapeHtml } from './first-party-ui';
import { ShowMapTool } from './show-map.tool';

const context = { callId: 'call_card' };

describe('first-party UI', () => {
  describe('ask_user with presentation card', () => {
    it('escapes every model-provided string of the card: <script> never appears raw', async () => {
      const outcome = await new AskUserTool().run(
        {
          interactionType: 'choice',
          content: 'Pick <script>alert(1)</script> & go',
          options: ['<script>steal()</script>', `"quoted" 'single' <b>bold</b>`],
          presentation: 'card',
        },
        context,
      );
      if (outcome.status !== 'interaction') throw new Error(`not an interaction: ${outcome.status}`);
      const html = outcome.html ?? '';
      expect(html).not.toContain('<script');
      expect(html).not.toContain('<b>');
      expect(html).toContain('Pick &lt;script&gt;alert(1)&lt;/script&gt; &amp; go');
      expect(html).toContain('&lt;script&gt;steal()&lt;/script&gt;');
      expect(html).toContain('&quot;quoted&quot; &#39;single&#39; &lt;b&gt;bold&lt;/b&gt;');
    });

    it('is an html resource of the call: ui://federation/choice-card/<callId>, closed, size in UTF-8 bytes', async () => {
      const outcome = await new AskUserTool().run(
        { interactionType: 'choice', content: 'Which city?', options: ['Paris', 'Zürich'], presentation: 'card' },
        context,
      );
      if (outcome.status !== 'interaction') throw new Error('not an interaction');
      const resource = outcome.interaction.uiResource as HtmlUiResource;
      expect(resource).toEqual({
        type: 'html',
        origin: 'first-party',
        altText: 'Which city?\n- Paris\n- Zürich',
        tool_call_id: 'call_card',
        uri: 'ui://federation/choice-card/call_card',
        tool_name: 'ask_user',
        server_name: 'federation',
        mime_type: 'text/html;profile=mcp-app',
        capabilities: { interaction_mode: 'closed' },
        size: Buffer.byteLength(outcome.html ?? '', 'utf8'),
      });
      expect(outcome.html).toContain('<li>Zürich</li>');
      expect(outcome.html).not.toMatch(/<script/i);
    });

    it('refuses a card for anything but a choice with options', async () => {
      const tool = new AskUserTool();
      const confirmation = await tool.run(
        { interactionType: 'confirmation', content: 'Sure?', options: ['Yes', 'No'], presentation: 'card' },
        context,
      );
      expect(confirmation.status).toBe('failed');
      expect(
        (await tool.run({ interactionType: 'choice', content: 'Which?', presentation: 'card' }, context)).status,
      ).toBe('failed');
    });
  });

  describe('ask_user with presentation form', () => {
    it('has one labelled field per prompt line, escaped', async () => {
      const outcome = await new AskUserTool().run(
        { interactionType: 'question', content: 'Your name?\n\nYour <email>?', presentation: 'form' },
        context,
      );
      if (outcome.status !== 'interaction') throw new Error('not an interaction');
      const html = outcome.html ?? '';
      expect(html).toContain('<label for="field-1">Your name?</label>');
      expect(html).toContain('<label for="field-2">Your &lt;email&gt;?</label>');
      expect(html.match(/<textarea/g)).toHaveLength(2);
      expect(outcome.interaction.uiResource).toMatchObject({
        uri: 'ui://federation/question-form/call_card',
        altText: 'Your name?\n\nYour <email>?',
      });
      expect(outcome.interaction.options).toBeUndefined();
    });

    it('takes the fields of `fields` when given, and lists them in the alternative text', async () => {
      const outcome = await new AskUserTool().run(
        { interactionType: 'question', content: 'A few details', presentation: 'form', fields: ['Name', 'Email'] },
        context,
      );
      if (outcome.status !== 'interaction') throw new Error('not an interaction');
      expect(outcome.interaction.uiResource?.altText).toBe('A few details\n- Name\n- Email');
      expect(outcome.html?.match(/<label/g)).toHaveLength(2);
    });

    it('refuses a form for a choice, and fields without a form', async () => {
      const tool = new AskUserTool();
      expect(
        (await tool.run({ interactionType: 'choice', content: 'x', options: ['a'], presentation: 'form' }, context))
          .status,
      ).toBe('failed');
      expect((await tool.run({ interactionType: 'question', content: 'x', fields: ['a'] }, context)).status).toBe(
        'failed',
      );
    });
  });

  it('escapes &, <, >, " and \'', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe(
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;',
    );
  });

  describe('show_map', () => {
    it('is a first-party data resource of kind map with places, center and title, described in words', async () => {
      const places = [
        { id: 'p1', name: 'Alma', rating: 4.5 },
        { id: 'p2', name: 'Brew', price: '€€' },
        { id: 'p3', name: 'Cup' },
        { id: 'p4', name: 'Dot', note: 'quiet' },
        { id: 'p5', name: 'Ember', distance: '1.2 km' },
      ];
      const outcome = await new ShowMapTool().run({ title: 'Coffee near you', center_place_id: 'p2', places });
      if (outcome.status !== 'completed') throw new Error('not completed');
      expect(outcome.uiResource?.resource).toEqual({
        type: 'data',
        origin: 'first-party',
        altText: 'Map: Coffee near you: Alma, Brew and 3 more places',
        kind: 'map',
        data: { places, center_place_id: 'p2', title: 'Coffee near you' },
        generated_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      });
      expect(outcome.uiResource?.html).toBeUndefined();
    });

    it('names up to three places in the alternative text', async () => {
      const outcome = await new ShowMapTool().run({
        places: [
          { id: 'a', name: 'A' },
          { id: 'b', name: 'B' },
        ],
      });
      expect(outcome.status === 'completed' && outcome.uiResource?.resource.altText).toBe('Map: A and B');
    });

    it('refuses a center that is not one of the places, and two places with one id', async () => {
      const tool = new ShowMapTool();
      expect((await tool.run({ center_place_id: 'x', places: [{ id: 'a', name: 'A' }] })).status).toBe('failed');
      expect(
        (
          await tool.run({
            places: [
              { id: 'a', name: 'A' },
              { id: 'a', name: 'B' },
            ],
          })
        ).status,
      ).toBe('failed');
    });
  });
});
