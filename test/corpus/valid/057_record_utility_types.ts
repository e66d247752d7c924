type User = { id: number; name: string; email?: string };
const partial: Partial<User> = { name: "x" };
const picked: Pick<User, "id"> = { id: 1 };
({ ...partial, ...picked })
