import { EOL } from "node:os";
EOL.length
