export { BrowserSignIn } from "./browser-sign-in.js";
export { CHROMIUM_PATH, launchChromium, type SignInOptions, signInWithChromium } from "./chromium.js";
export { type ClientMetadata, type Idp, type IdpOptions, type SigningAlgorithm, startIdp } from "./idp.js";
