import { pieceText, readAnswer } from './scripted-answers';

const answer = (n: number, pieces: number[]) => pieces.map((p) => pieceText(n, p)).join('');

describe('reading the scripted answers back', () => {
  it('finds an answer complete only with all its pieces, in order, once', () => {
    expect(readAnswer(answer(7, [1, 2, 3]), 3)).toEqual({ pieces: 3, repeated: 0, prefix: true, complete: true });
    expect(readAnswer(answer(7, [1, 2]), 3)).toMatchObject({ prefix: true, complete: false });
    expect(readAnswer('', 3)).toMatchObject({ pieces: 0, prefix: true, complete: false });
  });

  it('counts a piece shown twice (a chunk replayed after a reconnect)', () => {
    expect(readAnswer(answer(7, [1, 2, 2, 3]), 3)).toMatchObject({ repeated: 1, complete: false });
  });

  it('refuses a gap, pieces of two answers and text that is no piece', () => {
    expect(readAnswer(answer(7, [1, 3]), 3).prefix).toBe(false);
    expect(readAnswer(answer(7, [1]) + answer(8, [2, 3]), 3).prefix).toBe(false);
    expect(readAnswer(`${answer(7, [1, 2, 3])}Echo: hi`, 3).complete).toBe(false);
  });
});
