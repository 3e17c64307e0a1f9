import { jsdomWindow, installJsdomStorage } from './jsdom-storage';

// The page's localStorage and sessionStorage, also on Node versions that define their own (Node 25+). A setup
// file of its own, run before setup.ts, because modules that setup.ts imports (MSW's cookie store) read
// localStorage as they load.
installJsdomStorage(globalThis, jsdomWindow());
