declare module "validate-npm-package-name" {
  export default function validate(name: string): {
    validForNewPackages: boolean;
    validForOldPackages: boolean;
    errors?: string[];
    warnings?: string[];
  };
}
