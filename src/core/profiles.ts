// Which profile a command acts on (--profile, XCTL_PROFILE, else the store's default) and the
// store it lives in, opened once per command.
import { Store, checkProfileName, type Profile } from './config.js';
import { UsageError } from './errors.js';

export class Profiles {
  private storePromise?: Promise<Store>;
  private newProfileAllowed = false;
  private profileChecked = false;

  /** `chosen`: the --profile flag (commander fills it from XCTL_PROFILE too). */
  constructor(
    private readonly env: Record<string, string | undefined>,
    private readonly chosen: string | undefined,
  ) {}

  store(): Promise<Store> {
    this.storePromise ??= Store.open(this.env);
    return this.storePromise;
  }

  /** True when --profile or XCTL_PROFILE names the profile (not the store's default). */
  get explicit(): string | undefined {
    return this.chosen ?? this.env.XCTL_PROFILE;
  }

  /** For the commands that create profiles: an unknown --profile is a new one. */
  allowNew(): void {
    this.newProfileAllowed = true;
  }

  /**
   * The selected profile's name. A name given explicitly must exist (a typo would otherwise act
   * on, or create, an empty profile), except after allowNew().
   */
  async name(): Promise<string> {
    const explicit = this.explicit;
    const store = await this.store();
    if (!explicit) return store.defaultProfile;
    const name = checkProfileName(explicit);
    if (!this.newProfileAllowed && !this.profileChecked) {
      const known = Object.keys(store.profiles());
      if (!known.includes(name) && name !== store.defaultProfile) {
        const { didYouMean } = await import('./suggest.js');
        // commander fills --profile from XCTL_PROFILE: the same value means it came from there.
        const from = this.env.XCTL_PROFILE === name ? ' (from XCTL_PROFILE)' : '';
        throw new UsageError(`unknown profile "${name}"${from}${didYouMean(name, known)}`, {
          flag: '--profile',
          hint: known.length
            ? `profiles: ${known.join(', ')}; create a new one with \`xctl --profile ${name} auth set ...\` or \`auth login\``
            : `no profile exists yet: create one with \`xctl --profile ${name} auth set ...\`, \`auth login\`, \`auth import --twurlrc\` or \`sandbox start --configure\``,
        });
      }
      this.profileChecked = true;
    }
    return name;
  }

  /**
   * When no profile is selected (none named, and the default one does not exist) but others do
   * (`sandbox start --configure` writes "sandbox" without selecting it): how to select one.
   */
  async unselected(): Promise<{ message: string; hint: string } | undefined> {
    if (this.explicit) return undefined;
    const store = await this.store();
    const known = Object.keys(store.profiles());
    if (!known.length || known.includes(store.defaultProfile)) return undefined;
    const one = known.length === 1 ? known[0]! : undefined;
    return {
      message: `no profile is selected ("${store.defaultProfile}" does not exist)`,
      hint: one
        ? `the profile "${one}" exists: \`xctl auth profiles use ${one}\` (or --profile ${one})`
        : `profiles: ${known.join(', ')}; select one with \`xctl auth profiles use NAME\``,
    };
  }

  async profile(): Promise<Profile | undefined> {
    return (await this.store()).profile(await this.name());
  }

  async update(patch: Partial<Profile>): Promise<Profile> {
    const store = await this.store();
    return store.updateProfile(await this.name(), patch);
  }
}
