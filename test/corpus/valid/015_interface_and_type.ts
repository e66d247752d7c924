interface Point { x: number; y: number }
type Pair = [Point, Point];
const pair: Pair = [{ x: 0, y: 0 }, { x: 3, y: 4 }];
Math.hypot(pair[1].x - pair[0].x, pair[1].y - pair[0].y)
