import { contextCopies, instructions } from '../support/dockerfile';

describe('reading a Dockerfile', () => {
  it('joins continuation lines and drops comments', () => {
    expect(instructions('# c\nFROM x\nRUN a \\\n  && b\n\nCMD ["y"]\n')).toEqual(['FROM x', 'RUN a  && b', 'CMD ["y"]']);
  });

  it('keeps the copies from the build context, each after the WORKDIR in force, and not those from a stage', () => {
    const file = [
      'FROM base AS build',
      'WORKDIR /app',
      'COPY package.json ./',
      'RUN npm ci',
      'FROM base',
      'COPY --from=build /app/dist ./dist',
      'ADD migrations /m',
    ].join('\n');
    expect(contextCopies(file)).toEqual(['WORKDIR /app', 'COPY package.json ./', 'WORKDIR /', 'ADD migrations /m']);
  });
});
