import type { ToolCall } from '../model/chat-wire';
import { AskUserTool } from './ask-user.tool';
import { ShowMapTool } from './show-map.tool';
import { ToolBox } from './tool-box';

const call = (name: string, args: unknown): ToolCall => ({
  id: 'call_1',
  type: 'function',
  function: { name, arguments: JSON.stringify(args) },
});

describe('the first-party UI tools refuse, by their schemas, what the model must not send', () => {
  const toolbox = new ToolBox([new AskUserTool(), new ShowMapTool()]);

  it('refuses a map place with coordinates or an address (no other fields than id, name, note, price, distance, rating)', () => {
    expect(toolbox.prepare(call('show_map', { places: [{ id: 'a', name: 'A', lat: 1, lng: 2 }] })).ok).toBe(false);
    expect(toolbox.prepare(call('show_map', { places: [{ id: 'a', name: 'A', address: 'Main St 1' }] })).ok).toBe(
      false,
    );
    expect(toolbox.prepare(call('show_map', { places: [{ id: 'a', name: 'A' }], center: [1, 2] })).ok).toBe(false);
    expect(
      toolbox.prepare(
        call('show_map', { places: [{ id: 'a', name: 'A', note: 'n', price: '€', distance: '1 km', rating: 4 }] }),
      ).ok,
    ).toBe(true);
  });

  it('refuses a map of no places or more than 50', () => {
    expect(toolbox.prepare(call('show_map', { places: [] })).ok).toBe(false);
    const places = Array.from({ length: 51 }, (_, i) => ({ id: `p${i}`, name: `P${i}` }));
    expect(toolbox.prepare(call('show_map', { places })).ok).toBe(false);
    expect(toolbox.prepare(call('show_map', { places: places.slice(0, 50) })).ok).toBe(true);
  });

  it('refuses more than 10 options, or an option over 200 characters', () => {
    const ask = (options: string[]) =>
      toolbox.prepare(
        call('ask_user', { interactionType: 'choice', content: 'Which?', options, presentation: 'card' }),
      );
    expect(ask(Array.from({ length: 11 }, (_, i) => `o${i}`)).ok).toBe(false);
    expect(ask(['x'.repeat(201)]).ok).toBe(false);
    expect(ask([...Array.from({ length: 9 }, (_, i) => `o${i}`), 'x'.repeat(200)]).ok).toBe(true);
  });

  it('refuses an unknown presentation', () => {
    expect(
      toolbox.prepare(
        call('ask_user', { interactionType: 'choice', content: 'Which?', options: ['a'], presentation: 'modal' }),
      ).ok,
    ).toBe(false);
  });
});
