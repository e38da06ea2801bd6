import { parseDictionary, serializeInnerList, serializeItem, type InnerList } from 'structured-headers';
import { describe, expect, it } from 'vitest';
import { componentText, innerListText } from '../../../src/analytics/verification/field-serialization.js';

describe('signature-base serialization', () => {
  const inputs = [
    'sig1=("@authority" "signature-agent");created=1764000000;expires=1764000060;keyid="poqk";alg="ed25519";nonce="n1";tag="web-bot-auth"',
    'sig2=("@authority" "signature-agent";key="sig2" "@path");created=1;expires=2;keyid="a\\"b\\\\c";tag="web-bot-auth"',
    'sig1=("@method" "@query-param";name="q";bs);created=1;flag;other=?0;tok=abc/def;dec=1.5;bytes=:AQID:;tag="web-bot-auth"',
    'sig1=();created=0',
  ];
  it.each(inputs)('writes what the library writes: %s', (header) => {
    for (const [, member] of parseDictionary(header)) {
      const list = member as InnerList;
      expect(innerListText(list)).toBe(serializeInnerList(list));
      for (const component of list[0]) expect(componentText(component)).toBe(serializeItem(component));
    }
  });
});
