/** A waiting question's subject in a list row (renderer/src/lib/format/question-subject.ts). */
import { describe, expect, it } from 'vitest';
import { questionSubject, questionTitle } from '../../../../renderer/src/lib/format/question-subject';

describe('questionSubject', () => {
  it('shows the command an agent asks to run as code, so two sessions read differently', () => {
    expect(questionSubject('Waiting for an answer: Claude Code wants to run: git push --force')).toEqual({
      text: '',
      code: 'git push --force',
    });
  });

  it('shows the tool and the file it asks to use', () => {
    expect(questionSubject('Waiting for an answer: Claude Code wants to use Edit on src/app.ts')).toEqual({
      text: 'Edit on',
      code: 'src/app.ts',
    });
  });

  it('is null for a question that names no command or file, and for any other reason', () => {
    expect(questionSubject('Waiting for an answer: Deploy to production?')).toBeNull();
    expect(questionSubject('Parked: its source changed')).toBeNull();
  });
});

describe('questionTitle', () => {
  it('is the question without the words the Answer button already says', () => {
    expect(questionTitle('Waiting for an answer: Deploy to production?')).toBe('Deploy to production?');
    expect(questionTitle('2 questions waiting')).toBeNull();
    expect(questionTitle('Parked: its source changed')).toBeNull();
  });
});
