const Color = { Red: "red", Blue: "blue" } as const;
type Color = typeof Color[keyof typeof Color];
const c: Color = Color.Blue;
c
