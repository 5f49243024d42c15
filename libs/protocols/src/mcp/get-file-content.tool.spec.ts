import { textOf } from './get-file-content.tool';

describe('which deliverables get_file_content returns as text', () => {
  it('returns textual types and files of unknown type that are valid UTF-8 as text', () => {
    expect(textOf(Buffer.from('# Títle'), 'text/markdown')).toBe('# Títle');
    expect(textOf(Buffer.from('{"a":1}'), 'application/json; charset=utf-8')).toBe('{"a":1}');
    expect(textOf(Buffer.from('<svg/>'), 'image/svg+xml')).toBe('<svg/>');
    expect(textOf(Buffer.from('plain'), null)).toBe('plain');
  });

  it('returns other types, invalid UTF-8 and text with NUL as binary (undefined)', () => {
    expect(textOf(Buffer.from('abc'), 'application/octet-stream')).toBeUndefined();
    expect(textOf(Buffer.from([0xff, 0xfe, 0x00]), 'text/plain')).toBeUndefined();
    expect(textOf(Buffer.from('a\u0000b'), null)).toBeUndefined();
    expect(textOf(Buffer.from([0x89, 0x50, 0x4e, 0x47]), 'image/png')).toBeUndefined();
  });
});
