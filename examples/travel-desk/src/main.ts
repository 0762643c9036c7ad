import { serveStdio } from "@toolsmith/transport-stdio";
import { TravelDesk } from "./travel-desk.js";

serveStdio(new TravelDesk());
