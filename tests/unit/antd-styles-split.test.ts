import { describe, expect, it } from "vitest";
import { splitStylesheet } from "../../scripts/antd-styles/split";

describe("splitStylesheet", () => {
  const css = '.a{color:red}@media (min-width:576px){.b{color:blue}.c{margin:0}}.d::before{content:"}{"}.e{x:1}';

  it("cuts between top-level rules, the parts in order giving back the sheet", () => {
    for (const max of [1, 10, 20, 40, 1000]) {
      const parts = splitStylesheet(css, max);
      expect(parts.join(""), `max ${max}`).toBe(css);
      // No part ends inside a block: each is balanced on its own.
      for (const part of parts) expect(part.replace(/"[^"]*"/g, "").split("{").length, part).toBe(part.replace(/"[^"]*"/g, "").split("}").length);
    }
    expect(splitStylesheet(css, 1000)).toEqual([css]);
    expect(splitStylesheet(css, 1)).toEqual([".a{color:red}", "@media (min-width:576px){.b{color:blue}.c{margin:0}}", '.d::before{content:"}{"}', ".e{x:1}"]);
  });

  it("fills each part up to the limit", () => {
    expect(splitStylesheet(".a{x:1}.b{x:2}.c{x:3}", 14)).toEqual([".a{x:1}.b{x:2}", ".c{x:3}"]);
    expect(splitStylesheet(".a{x:1}.b{x:2}.c{x:3}", 13)).toEqual([".a{x:1}", ".b{x:2}", ".c{x:3}"]);
  });

  it("keeps comments whole and refuses an unbalanced sheet", () => {
    expect(splitStylesheet("/* { */.a{x:1}", 1)).toEqual(["/* { */.a{x:1}"]);
    expect(() => splitStylesheet(".a{x:1", 10)).toThrow(/unbalanced/);
    expect(() => splitStylesheet(".a{x:1}}", 10)).toThrow(/unbalanced/);
  });
});
