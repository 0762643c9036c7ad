// The floor plus `import "zod"`: what any zod-based server pays before its first line of code.
import "zod";
import "./hand-written.mjs";
