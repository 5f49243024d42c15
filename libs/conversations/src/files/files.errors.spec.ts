import { FilesError } from './files.errors';

describe('a files refusal', () => {
  it("answers with its table's code and the headers it was given, added to one another", () => {
    const error = new FilesError('range_not_satisfiable', 'the range is outside the file')
      .withHeaders({ 'Content-Range': 'bytes */10' })
      .withHeaders({ Connection: 'close' });
    const answer = error.toApiError();
    expect([answer.status, answer.code, answer.message]).toEqual([
      416,
      'range_not_satisfiable',
      'the range is outside the file',
    ]);
    expect(answer.headers).toEqual({ 'Content-Range': 'bytes */10', Connection: 'close' });
  });

  it('carries no headers unless given some', () => {
    const answer = new FilesError('upload_stalled', 'send it again').toApiError();
    expect([answer.status, answer.code, answer.headers]).toEqual([400, 'invalid_request', {}]);
  });
});
